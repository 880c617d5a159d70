import { sql, type Kysely } from 'kysely'
import type { Engine } from '../../src/config.ts'
import type { Database } from '../../src/database.ts'
import { VITAL_STEPS } from '../../common/vitals.ts'
import { type Dataset, series } from '../dataset.ts'

const MARKER = 'bench_pages'
/** Page templates of the dataset: a shop's product, category, search and content pages. */
export const BENCH_PAGES = 300
/** Page views per visit, spread over the pages by popularity (the k-th page gets 1/k of the first's). */
const VIEWS_PER_VISIT = 3
/** Buckets of one metric of one page on one day at most: two decades of vitalBucket's steps. */
const MOST_BUCKETS = 2 * VITAL_STEPS.length
/** Each metric's buckets: (10 + j) × mul ÷ div, j < MOST_BUCKETS, and the share of views (%) that report it. */
const METRICS = [['LCP', 100, 1, 100], ['INP', 10, 1, 60], ['CLS', 1, 1000, 100], ['FCP', 100, 1, 100], ['TTFB', 10, 1, 100]] as const

/**
 * Page counters of the benchmark project, added once beside its sessions (the pages report is read from counters
 * kept at ingest, never from events): 300 templates over the dataset's days, views by popularity (1/k), errors, rage
 * and dead clicks as shares of them, and per metric a histogram of up to 90 buckets, more for busier pages (one
 * bucket per 5 samples), at places and counts derived from the page and day. Totals are summed from the days, as
 * ingest keeps them.
 */
export async function ensurePages(db: Kysely<Database>, engine: Engine, dataset: Dataset, log: (line: string) => void): Promise<number> {
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) return Number(marker.value)
  const p = dataset.projectId
  const bounds = await db.selectFrom('sessions').select((eb) => [eb.fn.min('start_day').as('lo'), eb.fn.max('start_day').as('hi')])
    .where('project_id', '=', p).executeTakeFirstOrThrow()
  const { lo, hi } = bounds
  // Views of the most viewed page a day: all views over the harmonic number of the pages (about 6.28 for 300).
  const harmonic = Array.from({ length: BENCH_PAGES }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0)
  const top = Math.round((dataset.spec.sessions * VIEWS_PER_VISIT) / (hi - lo + 1) / harmonic)
  log(`${BENCH_PAGES} pages × ${hi - lo + 1} days of page counters…`)
  const hash = (expr: string) => `((${expr}) * 2654435761 % 4294967296)`
  const grid = `select ${lo} + d.n as day, k.n as k, 'https://bench.example/' || case k.n % 4 when 0 then 'p' when 1 then 'c' when 2 then 'search'
      else 'blog' end || '/' || k.n || '/:id' as page, ${top} / (k.n + 1) + ${hash('k.n * 31 + d.n')} % 7 as views
    from ${series(engine, hi - lo, 'd')} cross join ${series(engine, BENCH_PAGES - 1, 'k')}`
  const metrics = METRICS.map(([name, mul, div, share]) => `select '${name}' as metric, ${mul} as mul, ${div}.0 as div, ${share} as share`).join(' union all ')
  // A metric's samples of the day, spread over `b` buckets from a place of the page's and day's.
  await sql.raw(`insert into page_vitals (project_id, day, metric, page, bucket, count)
    select '${p}', day, metric, page, (10 + (${hash('k * 7 + day')} % ${MOST_BUCKETS} + j.n * ${MOST_BUCKETS} / b) % ${MOST_BUCKETS}) * mul / div,
      1 + samples / b + ${hash('day + j.n')} % 3
    from (select g.day, g.k, g.page, m.metric, m.mul, m.div, g.views * m.share / 100 as samples,
        case when g.views * m.share / 500 + 1 < ${MOST_BUCKETS} then g.views * m.share / 500 + 1 else ${MOST_BUCKETS} end as b
      from (${grid}) g cross join (${metrics}) m) x
    join ${series(engine, MOST_BUCKETS - 1, 'j')} on j.n < b`).execute(db)
  await sql.raw(`insert into page_days (project_id, day, page, views, errors, rage_clicks, dead_clicks, vitals)
    select '${p}', g.day, g.page, g.views, g.views * (${hash('g.k + g.day')} % 5) / 100, g.views / 150, g.views / 80, coalesce(v.n, 0)
    from (${grid}) g left join (select day, page, sum(count) as n from page_vitals where project_id = '${p}' group by day, page) v
      on v.day = g.day and v.page = g.page`).execute(db)
  await sql.raw(`insert into page_totals (project_id, page, views, errors, rage_clicks, dead_clicks, vitals)
    select project_id, page, sum(views), sum(errors), sum(rage_clicks), sum(dead_clicks), sum(vitals) from page_days
    where project_id = '${p}' group by project_id, page`).execute(db)
  await sql.raw(`insert into page_vital_totals (project_id, metric, page, bucket, count)
    select project_id, metric, page, bucket, sum(count) from page_vitals where project_id = '${p}' group by project_id, metric, page, bucket`).execute(db)
  const rows = Number((await db.selectFrom('page_vitals').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', p).executeTakeFirstOrThrow()).n)
  log(`page counters: ${rows} vital buckets`)
  await db.insertInto('meta').values({ key: MARKER, value: String(rows) }).execute()
  if (engine === 'postgres') await sql`analyze`.execute(db)
  return rows
}
