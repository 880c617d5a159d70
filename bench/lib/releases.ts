import { sql, type Kysely } from 'kysely'
import type { Engine } from '../../src/config.ts'
import type { Database } from '../../src/database.ts'
import type { Dataset } from '../dataset.ts'

const MARKER = 'bench_releases'
/** Releases of the dataset: a new one every day or so, as a site that deploys daily has. */
export const BENCH_RELEASES = 40

/**
 * Release health of the benchmark project, added once beside its sessions and issues: every visit gets a release by
 * its start (`shop@1.<k>`, 40 over the 33 days) and production: its release unit, of one of 5,000 users, and the counters
 * are then built as the store builds them (src/releases): one visit one session, errored with a handled ERROR,
 * crashed with an unhandled one; distinct users per release; sessions per UTC day; and every issue opened by one release.
 */
export async function ensureReleases(db: Kysely<Database>, engine: Engine, dataset: Dataset, log: (line: string) => void): Promise<number> {
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) return Number(marker.value)
  log(`${BENCH_RELEASES} releases…`)
  const p = dataset.projectId
  const bounds = await db.selectFrom('sessions').select((eb) => [eb.fn.min('started_at').as('lo'), eb.fn.max('started_at').as('hi')])
    .where('project_id', '=', p).executeTakeFirstOrThrow()
  const lo = bounds.lo
  const span = Math.max(1, bounds.hi - lo + 1)
  const k = `((started_at - ${lo}) * ${BENCH_RELEASES} / ${span})`
  // The releases and users are the release units' alone: writing them into every visit's row would change what the list
  // and search scenarios read (and, on PostgreSQL, leave a second version of every row until a vacuum).
  const user = `'user-' || ((started_at * 7 + length(id)) % 5000)`
  // Crashed: an unhandled ERROR ('Uncaught …'); errored: a handled one. The bench's ERRORs are handled; one visit in 40 crashed.
  const outcome = `case when s.started_at % 40 = 0 then 'crashed' when s.events_errors > 0 and exists (select 1 from events e
    where e.project_id = s.project_id and e.session_id = s.id and e.type = 'ERROR') then 'errored' else 'healthy' end`
  await sql.raw(`insert into release_units (project_id, unit, source, release, environment, user_key, day, started_at, seen_at,
      sessions, errored, crashed, abnormal)
    select project_id, 'v:' || id, 'visit', 'shop@1.' || ${k}, 'production', ${user}, start_day, started_at, last_seen_at, 1,
      case when o = 'errored' then 1 else 0 end, case when o = 'crashed' then 1 else 0 end, 0
    from (select s.*, ${outcome} as o from sessions s where s.project_id = '${p}') x`).execute(db)
  await sql.raw(`insert into release_users (project_id, release, environment, user_key, sessions, crashed)
    select project_id, release, environment, user_key, sum(sessions), sum(crashed) from release_units
    where project_id = '${p}' group by project_id, release, environment, user_key`).execute(db)
  await sql.raw(`insert into release_days (project_id, release, environment, day, sessions, errored, crashed, abnormal)
    select project_id, release, environment, day, sum(sessions), sum(errored), sum(crashed), sum(abnormal) from release_units
    where project_id = '${p}' group by project_id, release, environment, day`).execute(db)
  await sql.raw(`insert into releases (project_id, release, environment, sessions, errored, crashed, abnormal, users, crashed_users,
      first_seen_at, last_seen_at)
    select u.project_id, u.release, u.environment, sum(u.sessions), sum(u.errored), sum(u.crashed), sum(u.abnormal),
      (select count(*) from release_users r where r.project_id = u.project_id and r.release = u.release and r.environment = u.environment),
      (select count(*) from release_users r where r.project_id = u.project_id and r.release = u.release and r.environment = u.environment
        and r.crashed > 0), min(u.started_at), max(u.seen_at)
    from release_units u where u.project_id = '${p}' group by u.project_id, u.release, u.environment`).execute(db)
  await sql.raw(`update issues set release = 'shop@1.' || ((first_seen_at - ${lo}) * ${BENCH_RELEASES} / ${span}), environment = 'production'
    where project_id = '${p}' and first_seen_at >= ${lo}`).execute(db)
  await sql.raw(`insert into issue_release_totals (project_id, release, environment, issues)
    select project_id, release, environment, count(*) from issues where project_id = '${p}' and release is not null
    group by project_id, release, environment`).execute(db)
  const count = Number((await db.selectFrom('releases').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', p).executeTakeFirstOrThrow()).n)
  await db.insertInto('meta').values({ key: MARKER, value: String(count) }).execute()
  if (engine === 'postgres') await sql`analyze`.execute(db)
  return count
}
