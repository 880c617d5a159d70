/**
 * The benchmark's data: one project with N sessions spread evenly over 33 days, ~5 events each,
 * plus a few big sessions (200, 10,000, 12,000, 15,000 and 100,000 events). Rows are generated
 * inside the database from deterministic hashes of their number, so both engines hold the same
 * data and generation takes seconds, not an hour of HTTP. A marker row makes a later run reuse it.
 */
import { sql, type Kysely } from 'kysely'
import type { Engine } from '../src/config.ts'
import type { Database } from '../src/database.ts'
import { fillSearch } from '../src/db/migrations/0009_visit_search.ts'
import { fillTermBits } from '../src/db/migrations/0013_term_bits.ts'
import { createProject } from '../src/projects/service.ts'
import { DAY_MS } from '../src/util/time.ts'

export interface DatasetSpec {
  sessions: number
  days: number
  /** Big sessions by id, with their event counts. */
  big: Record<string, number>
}

export const FULL: DatasetSpec = {
  sessions: 1_000_000, days: 33,
  big: { 'bench-200': 200, 'bench-10k': 10_000, 'bench-12k': 12_000, 'bench-15k': 15_000, 'bench-100k': 100_000 },
}
export const QUICK: DatasetSpec = {
  sessions: 20_000, days: 33,
  big: { 'bench-200': 200, 'bench-10k': 10_000, 'bench-100k': 20_000 },
}

export interface Dataset {
  projectId: string
  apiKey: string
  spec: DatasetSpec
  /** The UTC day (YYYY-MM-DD) the date benchmark asks for: a full day in the middle. */
  busyDay: string
  events: number
}

const MARKER = 'bench_dataset'
/** Knuth's multiplicative hash, identical in both engines' 64-bit integer arithmetic. */
const h = (expr: string) => `((${expr}) * 2654435761 % 4294967296)`

export async function ensureDataset(
  db: Kysely<Database>, engine: Engine, spec: DatasetSpec, progress: (line: string) => void,
): Promise<Dataset> {
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) {
    const saved = JSON.parse(marker.value) as Dataset
    if (JSON.stringify(saved.spec) === JSON.stringify(spec)) {
      progress(`reusing the ${engine} dataset: ${saved.spec.sessions} sessions, ${saved.events} events`)
      return saved
    }
    throw new Error('the stored dataset was made with another spec; delete bench/data to regenerate it')
  }
  // Retention a year long keeps the 33 days visible however long the dataset is reused.
  const project = await createProject(db, { name: 'Bench shop', domain: 'bench.example', retentionDays: 365 })
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000
  const start = end - spec.days * DAY_MS
  const step = Math.floor((spec.days * DAY_MS) / spec.sessions)
  const timed = async (label: string, run: () => Promise<unknown>) => {
    const t0 = Date.now()
    progress(`${label}…`)
    await run()
    progress(`${label}: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  }
  if (engine === 'postgres') await sql`set synchronous_commit = off`.execute(db)

  await timed(`${spec.sessions} sessions`, () => sql.raw(`
    insert into sessions (project_id, id, session_key, started_at, start_day, last_seen_at, ip, country, user_agent, utm,
      events_total, events_errors, events_slow, recording_chunks, next_seq)
    select '${project.id}', 'bs' || ${h('n')} || '-' || n, 'k' || n, t, t / ${DAY_MS}, t + ${h('n + 7')} % 1800000,
      '203.0.113.' || (n % 250), case n % 5 when 0 then 'US' when 1 then 'DE' when 2 then 'RU' when 3 then 'FR' else 'BR' end,
      'Mozilla/5.0 (bench) ' || (n % 20), case when n % 3 = 0 then '{"utm_source":"bench"}' end,
      1 + ${h('n')} % 9, 0, 0, 0, 1 + ${h('n')} % 9
    from (select n, ${start} + n * ${step} + ${h('n + 3')} % 60000 as t from ${series(engine, spec.sessions - 1)}) g`).execute(db))

  const bigIds = Object.keys(spec.big)
  await timed('big sessions', async () => {
    for (const [i, [id, count]] of Object.entries(spec.big).entries()) {
      const t = end - (i + 2) * 3_600_000
      await sql.raw(`insert into sessions (project_id, id, session_key, started_at, start_day, last_seen_at, ip, country,
        user_agent, utm, events_total, events_errors, events_slow, recording_chunks, next_seq)
        values ('${project.id}', '${id}', '${id}-key', ${t}, ${Math.floor(t / DAY_MS)}, ${t + 3_000_000}, '198.51.100.7', 'US',
        'Mozilla/5.0 (bench big)', null, ${count}, 0, 0, 0, ${count})`).execute(db)
    }
  })

  // Normal sessions join a 9-row series, each big one its own: one big series for all would
  // make every session scan it (SQLite: minutes instead of seconds).
  const groups: [string, number][] = [[`s.id not in (${bigIds.map((id) => `'${id}'`).join(', ')})`, 9],
    ...Object.entries(spec.big).map(([id, count]): [string, number] => [`s.id = '${id}'`, count])]
  for (const [filter, maxPer] of groups) {
    await timed(`events (${maxPer <= 9 ? 'normal sessions' : filter})`, () => sql.raw(`
    insert into events (project_id, session_id, id, seq, type, created_at, url, method, message, stack, status_code,
      duration_ms, req_body, res_body)
    select project_id, session_id, 'e' || n, n, type, created_at,
      case when type in ('NAVIGATION', 'HTTP_ERROR', 'SLOW_REQUEST') then 'https://bench.example/p/' || (n % 40) end,
      case when type = 'HTTP_ERROR' then 'POST' end,
      case type when 'ERROR' then 'TypeError: Cannot read properties of undefined (reading ''price'')'
        when 'CLICK' then 'button.buy-' || (n % 12) || ' "Add to cart"' when 'INPUT' then 'input[name=field' || (n % 4) || ']' end,
      case when type = 'ERROR' then 'TypeError: Cannot read properties of undefined
    at renderCart (https://bench.example/app.js:120:15)
    at onClick (https://bench.example/app.js:88:3)' end,
      case when type = 'HTTP_ERROR' then 500 end,
      case when type in ('HTTP_ERROR', 'SLOW_REQUEST') then 200 + hash % 4000 end,
      case when type = 'HTTP_ERROR' then '{"sku":"A-1","qty":2,"password":"***"}' end,
      case when type = 'HTTP_ERROR' then '{"error":"internal"}' end
    from (
      select project_id, session_id, n, hash, created_at,
        case hash % 20 when 0 then 'ERROR' when 1 then 'ERROR' when 2 then 'HTTP_ERROR' when 3 then 'HTTP_ERROR'
          when 4 then 'SLOW_REQUEST' when 5 then 'SLOW_REQUEST' when 14 then 'NAVIGATION' when 15 then 'NAVIGATION'
          when 16 then 'NAVIGATION' when 17 then 'INPUT' when 18 then 'INPUT' when 19 then 'INPUT' else 'CLICK' end as type
      from (
        select s.project_id, s.id as session_id, k.n as n, ${h('(s.started_at % 1000003) * 16 + k.n')} as hash,
          s.started_at + (s.last_seen_at - s.started_at) * k.n / s.events_total as created_at
        from sessions s join ${series(engine, maxPer - 1, 'k')} on k.n < s.events_total
        where s.project_id = '${project.id}' and ${filter}
      ) base
    ) x`).execute(db))
  }

  await timed('counters', async () => {
    await sql.raw(`update sessions set events_errors = c.errors, events_slow = c.slow
      from (select session_id, sum(case when type in ('ERROR', 'HTTP_ERROR') then 1 else 0 end) as errors,
        sum(case when type = 'SLOW_REQUEST' then 1 else 0 end) as slow from events where project_id = '${project.id}' group by session_id) c
      where sessions.project_id = '${project.id}' and sessions.id = c.session_id`).execute(db)
    await sql.raw(`insert into session_days (project_id, day, sessions)
      select project_id, start_day, count(*) from sessions where project_id = '${project.id}' group by project_id, start_day`).execute(db)
  })
  // What ingest would have indexed for search (issue 13), as the migration fills it for visits stored before it.
  await timed('search index', () => fillSearch(engine, db as Kysely<unknown>))
  await timed('term bitmaps', () => fillTermBits(engine, db as Kysely<unknown>))
  // PostgreSQL's planner needs statistics (autovacuum gathers them in production). SQLite is left
  // as the service leaves it: with ANALYZE's STAT4 samples, SQLite re-prepares every statement
  // whose bound parameter feeds a range — 17 µs instead of 7 µs per list query, measured.
  if (engine === 'postgres') await timed('analyze', () => sql`analyze`.execute(db))

  const events = Number((await db.selectFrom('events').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', project.id).executeTakeFirstOrThrow()).n)
  const busy = new Date(start + Math.floor(spec.days / 2) * DAY_MS).toISOString().slice(0, 10)
  const dataset: Dataset = { projectId: project.id, apiKey: project.apiKey, spec, busyDay: busy, events }
  await db.insertInto('meta').values({ key: MARKER, value: JSON.stringify(dataset) }).execute()
  progress(`dataset ready: ${spec.sessions + bigIds.length} sessions, ${events} events`)
  return dataset
}

/** The integers 0..max as a table `alias(n)`: generate_series on PostgreSQL, a recursive CTE on SQLite. */
export function series(engine: Engine, max: number, alias = 'g0'): string {
  return engine === 'postgres'
    ? `generate_series(0::bigint, ${max}) as ${alias}(n)`
    : `(with recursive r(n) as (select 0 union all select n + 1 from r where n < ${max}) select n from r) as ${alias}`
}
