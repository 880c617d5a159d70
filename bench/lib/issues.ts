import { sql, type Kysely } from 'kysely'
import type { Engine } from '../../src/config.ts'
import type { Database } from '../../src/database.ts'
import { type Dataset, series } from '../dataset.ts'

const MARKER = 'bench_issues'

/**
 * Issues of the benchmark project, added once beside its sessions (issue 12: the issues list with its
 * exact total on 1M sessions and 100k issues costs no more than the sessions list): one issue per 10
 * sessions, last seen across the same 33 days, a tenth of them resolved, with their per-status totals.
 */
export async function ensureIssues(db: Kysely<Database>, engine: Engine, dataset: Dataset, log: (line: string) => void): Promise<number> {
  const count = Math.max(1, Math.floor(dataset.spec.sessions / 10))
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) return Number(marker.value)
  log(`${count} issues…`)
  const end = Date.now()
  const step = Math.floor((dataset.spec.days * 86_400_000) / count)
  const p = dataset.projectId
  await sql.raw(`insert into issues (project_id, id, grouping_version, type, title, culprit, first_seen_at, last_seen_at, events,
      sessions, status, resolved_at, created_at)
    select '${p}', 'bi' || n, 1, case when n % 3 = 0 then 'HTTP_ERROR' else 'ERROR' end,
      'TypeError: Cannot read properties of undefined (reading <str>) #' || n, 'renderCart (/static/app.js)',
      ${end} - n * ${step} - 60000, ${end} - n * ${step}, 1 + n % 50, 1 + n % 20,
      case when n % 10 = 0 then 'resolved' else 'open' end, case when n % 10 = 0 then ${end} else null end, ${end}
    from ${series(engine, count - 1)}`).execute(db)
  const resolved = Math.floor((count - 1) / 10) + 1
  await db.insertInto('issue_totals').values([
    { project_id: p, status: 'open', issues: count - resolved },
    { project_id: p, status: 'resolved', issues: resolved },
  ]).execute()
  await db.insertInto('meta').values({ key: MARKER, value: String(count) }).execute()
  if (engine === 'postgres') await sql`analyze issues`.execute(db)
  return count
}
