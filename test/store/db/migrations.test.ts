import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Kysely, Migrator, sql } from 'kysely'
import { loadConfig, type Engine } from '../../../src/config.ts'
import type { Database } from '../../../src/database.ts'
import { migrationProvider } from '../../../src/db/migrations/index.ts'
import { loadPg, postgresDialect } from '../../../src/db/postgres/dialect.ts'
import { sqliteDialect } from '../../../src/db/sqlite/dialect.ts'
import { nextSessionNum } from '../../../src/db/sql.ts'
import { BITS_PER_CHUNK } from '../../../src/db/bits.ts'
import { fillTermBits } from '../../../src/db/migrations/0013_term_bits.ts'
import { TEXT_INDEX_PENDING_KB } from '../../../src/db/migrations/0014_text_index_pending.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { dsnKeyOf } from '../../../src/projects/keys.ts'
import { createTestDatabase, storedTermBits, storedTerms } from '../../helpers/databases.ts'
import { testEngines } from '../../helpers/engines.ts'

/** A fresh database with no migration applied yet, opened without the service's own migrate-on-open. */
async function unmigrated(engine: Engine): Promise<{ db: Kysely<Database>; close: () => Promise<void> }> {
  const test = await createTestDatabase(engine)
  const { location } = loadConfig({ DATABASE_URL: test.url }).database
  const db = new Kysely<Database>({ dialect: engine === 'postgres' ? postgresDialect(await loadPg(), { url: location, poolSize: 2, statementTimeoutMs: 0, parallelWorkers: 0 }) : sqliteDialect(location) })
  return { db, close: async () => { await db.destroy(); await test.cleanup() } }
}

/** Migrations that change stored data: a database at the version before keeps what it held. */
for (const engine of testEngines()) {
  describe(`migrations carry data over [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('0008_issue_reads: issues keep their latest event and events per day; links keep their visits', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      const to7 = await migrator.migrateTo('0007_source_maps')
      assert.equal(to7.error, undefined)
      const t = Date.UTC(2026, 10, 20, 12)
      await db.insertInto('issues').values({
        project_id: 'p', id: 'i1', grouping_version: 1, type: 'ERROR', title: 'TypeError: x', culprit: null, first_seen_at: t - DAY_MS,
        last_seen_at: t, events: 3, sessions: 2, status: 'open', resolved_at: null, created_at: t,
      }).execute()
      const event = (sessionId: string, id: string, seq: number, at: number) => ({
        project_id: 'p', session_id: sessionId, id, seq, type: 'ERROR', created_at: at, url: null, method: null, message: 'x', stack: null,
        status_code: null, duration_ms: null, req_body: null, res_body: null, fingerprint: null, issue_id: 'i1',
      })
      await db.insertInto('events').values([event('s1', 'a', 0, t - DAY_MS), event('s1', 'b', 1, t - 5), event('s2', 'c', 0, t)]).execute()
      // The links as 0005 made them, with their event counts.
      await sql`insert into issue_sessions (project_id, issue_id, session_id, events) values ('p', 'i1', 's1', 2), ('p', 'i1', 's2', 1)`.execute(db)

      const latest = await migrator.migrateToLatest()
      assert.equal(latest.error, undefined)
      const issue = await db.selectFrom('issues').select(['last_session_id', 'last_event_id']).where('id', '=', 'i1').executeTakeFirstOrThrow()
      assert.deepEqual(issue, { last_session_id: 's2', last_event_id: 'c' })
      const days = await db.selectFrom('issue_days').select(['day', 'events']).where('issue_id', '=', 'i1').orderBy('day').execute()
      const day = Math.floor(t / DAY_MS)
      assert.deepEqual(days.map((d) => [d.day, d.events]), [[day - 1, 1], [day, 2]])
      const links = await db.selectFrom('issue_sessions').selectAll().orderBy('session_id').execute()
      assert.deepEqual(links, [{ project_id: 'p', issue_id: 'i1', session_id: 's1' }, { project_id: 'p', issue_id: 'i1', session_id: 's2' }])
      // The index that ingest paid for on every grouped event is gone.
      const indexes = engine === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)
        : await sql<{ name: string }>`select indexname as name from pg_indexes`.execute(db)
      assert.ok(!indexes.rows.some((r) => r.name === 'events_issue_idx' || r.name === 'issue_sessions_session_idx'))
    })
  })

  describe(`0019_webhook_secrets gives existing webhooks a secret each [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('a different whsec_ secret for every webhook', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateTo('0015_session_list_json')).error, undefined)
      await sql`insert into webhooks (project_id, id, url, created_at) values ('p', 'wh_a', 'https://a.example/', 1), ('p', 'wh_b', 'https://b.example/', 2)`.execute(db)
      assert.equal((await migrator.migrateToLatest()).error, undefined)
      const rows = await sql<{ id: string; secret: string }>`select id, secret from webhooks order by id`.execute(db)
      assert.deepEqual(rows.rows.map((r) => r.id), ['wh_a', 'wh_b'])
      for (const row of rows.rows) assert.match(row.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.notEqual(rows.rows[0]?.secret, rows.rows[1]?.secret)
    })
  })

  describe(`0020_drop_session_list_json drops the kept list JSON and its triggers, keeping the visits [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('no trigger, column or meta row of it is left, and sessions are written and read as before', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateTo('0019_webhook_secrets')).error, undefined)
      // The triggers as the release before put them in place after its migrations, each reading list_json.
      const kept = engine === 'postgres'
        ? ['create function sessionwatch_sessions_list_json() returns trigger language plpgsql as $b$ begin new.list_json := new.id; return new; end $b$',
          'create trigger sessions_list_json before insert or update of id on sessions for each row execute function sessionwatch_sessions_list_json()']
        : ['create trigger sessions_list_json_insert after insert on sessions begin update sessions set list_json = new.id where rowid = new.rowid; end',
          'create trigger sessions_list_json_update after update of id on sessions begin update sessions set list_json = new.id where rowid = new.rowid; end']
      for (const statement of kept) await sql.raw(statement).execute(db)
      await sql`insert into meta (key, value) values ('sessions.list_json', 'digest')`.execute(db)
      const visit = (id: string) => sql`insert into sessions (project_id, id, session_key, started_at, start_day, last_seen_at, num)
        values ('p', ${id}, ${`k-${id}`}, 1, 0, 2, ${id === 'old' ? 1 : 2})`.execute(db)
      await visit('old')
      assert.equal((await migrator.migrateToLatest()).error, undefined)
      await visit('new')
      const columns = engine === 'postgres'
        ? await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = 'sessions'`.execute(db)
        : await sql<{ name: string }>`select name from pragma_table_info('sessions')`.execute(db)
      assert.ok(!columns.rows.some((c) => c.name === 'list_json'), 'the column is gone')
      const triggers = engine === 'postgres'
        ? await sql<{ name: string }>`select tgname as name from pg_trigger where not tgisinternal`.execute(db)
        : await sql<{ name: string }>`select name from sqlite_master where type = 'trigger'`.execute(db)
      assert.ok(!triggers.rows.some((t) => t.name.startsWith('sessions_list_json')), 'its triggers are gone')
      assert.deepEqual(await db.selectFrom('meta').select('key').where('key', '=', 'sessions.list_json').execute(), [])
      assert.deepEqual((await db.selectFrom('sessions').select('id').orderBy('id').execute()).map((r) => r.id), ['new', 'old'])
    })
  })

  describe(`0011_project_dsn gives existing projects their DSN [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('numbers projects in creation order, derives each DSN key from its ingest key, and keeps both unique', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateTo('0010_project_privacy')).error, undefined)
      const project = (id: string, createdAt: number) => sql`insert into projects (id, name, domain, retention_days, api_key_hash, api_key_prefix, ingest_key, created_at)
        values (${id}, ${id}, 'x.example', 30, ${`hash-${id}`}, 'sw_api_', ${`sw_ing_${id}`}, ${createdAt})`.execute(db)
      await project('p_b', 2000)
      await project('p_a', 1000)
      assert.equal((await migrator.migrateToLatest()).error, undefined)
      const rows = await db.selectFrom('projects').select(['id', 'number', 'dsn_key']).orderBy('number').execute()
      assert.deepEqual(rows, [{ id: 'p_a', number: 1, dsn_key: dsnKeyOf('sw_ing_p_a') }, { id: 'p_b', number: 2, dsn_key: dsnKeyOf('sw_ing_p_b') }])
      assert.match(rows[0]?.dsn_key ?? '', /^[0-9a-f]{32}$/)
      await assert.rejects(db.updateTable('projects').set({ number: 1 }).where('id', '=', 'p_b').execute(), 'the number is unique')
    })
  })

  describe(`0009_visit_search fills search from stored visits [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('entry page, browser and OS, terms with their day counts, and searchable text', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateTo('0008_issue_reads')).error, undefined)
      const t = Date.UTC(2026, 10, 20, 12)
      await sql`insert into sessions (project_id, id, session_key, started_at, start_day, last_seen_at, ip, country, user_agent, utm,
        events_total, events_errors, events_slow, recording_chunks, recording_bytes, recording_dropped, next_seq)
        values ('p', 's1', 'k1', ${t}, ${Math.floor(t / DAY_MS)}, ${t + 10}, null, 'DE',
          'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', null, 3, 1, 0, 1, 10, 0, 3)`.execute(db)
      const event = (id: string, seq: number, type: string, fields: Record<string, unknown>) => ({
        project_id: 'p', session_id: 's1', id, seq, type, created_at: t + seq, url: null, method: null, message: null, stack: null,
        status_code: null, duration_ms: null, req_body: null, res_body: null, fingerprint: null, issue_id: null, ...fields,
      })
      await db.insertInto('events').values([
        event('a', 0, 'NAVIGATION', { url: 'https://shop.example/checkout' }),
        event('b', 1, 'HTTP_ERROR', { url: 'https://shop.example/api/pay', method: 'POST', status_code: 502 }),
        event('c', 2, 'USER_REPORT', { message: 'Pay button broken' }),
      ]).execute()

      assert.equal((await migrator.migrateToLatest()).error, undefined)
      const s = await db.selectFrom('sessions').select(['entry_url', 'browser', 'os', 'terms']).executeTakeFirstOrThrow()
      assert.deepEqual([s.entry_url, s.browser, s.os], ['https://shop.example/checkout', 'Firefox', 'Linux'])
      const terms = (await db.selectFrom('session_terms').select('term').orderBy('term').execute()).map((r) => r.term)
      assert.deepEqual(terms, ['b:Firefox', 'c:DE', 'has:errors', 'has:recording', 'o:Linux', 's:502', 's:5xx', 't:HTTP_ERROR', 't:NAVIGATION',
        't:USER_REPORT'])
      assert.deepEqual((JSON.parse(s.terms ?? '[]') as string[]).sort(), terms)
      const days = await db.selectFrom('term_days').select(['term', 'day', 'sessions']).orderBy('term').execute()
      assert.deepEqual(days.map((d) => [d.term, d.day, d.sessions]), terms.map((term) => [term, Math.floor(t / DAY_MS), 1]))
      const text = await db.selectFrom('session_texts').select(['page', 'body']).executeTakeFirstOrThrow()
      assert.equal(text.page, 'https://shop.example/checkout')
      assert.deepEqual(text.body.split('\n').sort(), ['Pay button broken', 'https://shop.example/api/pay'], 'pages are stored once, in page')
    })
  })

  describe(`0013_term_bits numbers stored visits and fills their bitmaps [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('each visit a number of its own, each term\'s visits its bits, and the next visit a number past them', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateTo('0012_project_changes')).error, undefined)
      const t = Date.UTC(2026, 10, 20, 12)
      const visits = [['p', 's1', ['c:DE', 'has:errors']], ['p', 's2', ['c:DE']], ['q', 's1', ['c:DE', 't:CLICK']]] as const
      for (const [project, id, terms] of visits) {
        await sql`insert into sessions (project_id, id, session_key, started_at, start_day, last_seen_at, events_total, events_errors, events_slow,
          recording_chunks, recording_bytes, recording_dropped, next_seq, terms)
          values (${project}, ${id}, ${`k-${id}`}, ${t}, ${Math.floor(t / DAY_MS)}, ${t}, 1, 0, 0, 0, 0, 0, 1, ${JSON.stringify(terms)})`.execute(db)
        for (const term of terms) await sql`insert into session_terms (project_id, term, session_id) values (${project}, ${term}, ${id})`.execute(db)
      }
      assert.equal((await migrator.migrateToLatest()).error, undefined)
      const nums = (await db.selectFrom('sessions').select('num').execute()).map((r) => r.num)
      assert.equal(new Set(nums).size, 3, 'distinct numbers')
      for (const project of ['p', 'q']) assert.deepEqual(await storedTermBits(db, project), await storedTerms(db, project), project)
      const { rows: [next] } = await sql<{ n: number | string }>`select ${nextSessionNum(db)} as n`.execute(db)
      assert.ok(Number(next?.n) > Math.max(...nums), 'a new visit is numbered past the stored ones')
      // Numbers on both sides of a chunk's end: the statement's chunk and bit are the service's (bits.ts).
      await sql`update sessions set num = num + ${BITS_PER_CHUNK - 2} - ${Math.min(...nums)}`.execute(db)
      await fillTermBits(engine, db as Kysely<unknown>)
      for (const project of ['p', 'q']) assert.deepEqual(await storedTermBits(db, project), await storedTerms(db, project), `${project}, refilled`)
      assert.equal(Number((await sql<{ n: number | string }>`select count(distinct chunk) as n from term_bits`.execute(db)).rows[0]?.n), 2)
    })
  })

  describe(`0014_text_index_pending bounds the trigram indexes' pending lists [${engine}]`, () => {
    let db: Kysely<Database>
    let close: () => Promise<void>
    before(async () => { ({ db, close } = await unmigrated(engine)) })
    after(() => close())

    it('both indexes of session_texts keep at most TEXT_INDEX_PENDING_KB kB pending', { skip: engine === 'postgres' ? false : 'PostgreSQL\'s GIN only' }, async () => {
      const migrator = new Migrator({ db, provider: migrationProvider(engine) })
      assert.equal((await migrator.migrateToLatest()).error, undefined)
      const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`select relname, reloptions from pg_class
        where relname in ('session_texts_page_idx', 'session_texts_body_idx') order by relname`.execute(db)
      assert.deepEqual(rows.map((r) => [r.relname, r.reloptions]), [
        ['session_texts_body_idx', [`gin_pending_list_limit=${TEXT_INDEX_PENDING_KB}`]],
        ['session_texts_page_idx', [`gin_pending_list_limit=${TEXT_INDEX_PENDING_KB}`]],
      ])
    })
  })
}
