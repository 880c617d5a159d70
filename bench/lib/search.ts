import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/database.ts'
import { term } from '../../src/search/index.ts'
import type { Dataset } from '../dataset.ts'

const MARKER = 'bench_search'

/** The search scenarios' values, found in the data ensureSearch adds. */
export interface SearchData {
  user: string
  issue: string | null
}

/**
 * What issue 13's search filters look for, added once to the benchmark's sessions (their events already gave the
 * migration their types, statuses and texts): a user on one visit in ten (user-<k>, ~1 visit each), a `plan`
 * tag on every visit (pro on one in three), browser and OS families spread as on a real site, a USER_REPORT on
 * one visit in 200, and issue links for one issue. Derived from started_at, so both engines hold the same data.
 */
export async function ensureSearch(db: Kysely<Database>, dataset: Dataset, log: (line: string) => void): Promise<SearchData> {
  const marker = await db.selectFrom('meta').select('value').where('key', '=', MARKER).executeTakeFirst()
  if (marker) return JSON.parse(marker.value) as SearchData
  const k = (mod: number) => `((started_at % 1000003) * 2654435761 % 4294967296 / 16 % ${mod})`
  const p = dataset.projectId
  const t0 = Date.now()
  log('search data (users, tags, browsers, reports)…')
  // Facets spread by a hash of started_at (its low digits alone correlate with the dataset's spacing): k(mod).
  await sql.raw(`update sessions set
      user_id = case when ${k(10)} = 0 then 'user-' || (started_at % 1000003) end,
      browser = case ${k(20)} when 0 then 'Firefox' when 1 then 'Firefox' when 2 then 'Safari' when 3 then 'Safari'
        when 4 then 'Safari' when 5 then 'Microsoft Edge' else 'Chrome' end,
      os = case ${k(10)} when 0 then 'macOS' when 1 then 'iOS' when 2 then 'Android' when 3 then 'Android' when 4 then 'Linux'
        else 'Windows' end,
      tags = case when ${k(3)} = 0 then '{"plan":"pro"}' else '{"plan":"free"}' end
    where project_id = '${p}'`).execute(db)
  // The terms these facts give a visit, counted per start day as ingest counts them. (The rows' own `terms`
  // lists, which only deletion reads, are left as the migration wrote them: the benchmark deletes nothing.)
  const added = ['b:%', 'o:%', 'g:%', term.type('USER_REPORT')]
  // The families bowser read from the dataset's made-up User-Agents are replaced by the ones set above (and a run
  // stopped halfway starts over).
  for (const table of ['session_terms', 'term_days']) {
    await sql.raw(`delete from ${table} where project_id = '${p}' and (${added.map((a) => `term like '${a}'`).join(' or ')})`).execute(db)
  }
  await sql.raw(`insert into session_terms (project_id, term, session_id)
    select project_id, 'b:' || browser, id from sessions where project_id = '${p}'
    union all select project_id, 'o:' || os, id from sessions where project_id = '${p}'
    union all select project_id, case when ${k(3)} = 0 then '${term.tag('plan', 'pro')}' else '${term.tag('plan', 'free')}' end, id
      from sessions where project_id = '${p}'
    union all select project_id, '${term.type('USER_REPORT')}', id from sessions where project_id = '${p}' and ${k(200)} = 7`).execute(db)
  // What q= and url= find them by, as ingest indexes it: the user id; the visitor's report, on the checkout page.
  await sql.raw(`insert into session_texts (project_id, session_id, part, page, body)
    select project_id, id, 1000000, case when ${k(200)} = 7 then 'https://bench.example/checkout/payment' else '' end,
      coalesce(user_id, '') || case when ${k(200)} = 7 then ' The pay button does nothing' else '' end
    from sessions where project_id = '${p}' and (user_id is not null or ${k(200)} = 7)`).execute(db)
  await sql.raw(`insert into term_days (project_id, term, day, sessions)
    select t.project_id, t.term, s.start_day, count(*) from session_terms t join sessions s on s.project_id = t.project_id and s.id = t.session_id
    where t.project_id = '${p}' and (${added.map((a) => `t.term like '${a}'`).join(' or ')})
    group by t.project_id, t.term, s.start_day`).execute(db)
  // One issue with the visits of every 50th session linked (20,000 visits): a hot issue.
  const issue = await db.selectFrom('issues').select('id').where('project_id', '=', p).orderBy('id').limit(1).executeTakeFirst()
  if (issue) {
    await db.deleteFrom('issue_sessions').where('project_id', '=', p).where('issue_id', '=', issue.id).execute()
    await sql.raw(`insert into issue_sessions (project_id, issue_id, session_id)
      select project_id, '${issue.id}', id from sessions where project_id = '${p}' and ${k(50)} = 3`).execute(db)
  }
  const user = await db.selectFrom('sessions').select('user_id').where('project_id', '=', p).where('user_id', 'is not', null)
    .orderBy('last_seen_at', 'desc').limit(1).executeTakeFirst()
  const data: SearchData = { user: user?.user_id ?? 'nobody', issue: issue?.id ?? null }
  await db.insertInto('meta').values({ key: MARKER, value: JSON.stringify(data) }).execute()
  log(`search data: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  return data
}

/**
 * Issue 13's search scenarios: each filter alone ("search:"), then pairs ("search2:"), as the route's query string, and
 * the status expected: a word in half the visits (q=price) is refused as too broad to count (400), by design — on the
 * full dataset; the quick one holds fewer such visits than SEARCH_TEXT_MATCH_LIMIT, so there they are counted (200).
 */
export function searchScenarios(search: SearchData, busyDay: string, quick: boolean): [string, string, number][] {
  const single: [string, string, number][] = [
    ['errors=true', 'errors=true', 200], ['recording=true', 'recording=true', 200], ['user=', `user=${search.user}`, 200],
    ['country=', 'country=DE', 200], ['browser=', 'browser=firefox', 200], ['browser= (65%)', 'browser=chrome', 200], ['os=', 'os=windows', 200],
    ['url=', 'url=checkout', 200], ['q=', 'q=%22pay%20button%22', 200], [quick ? 'q= broad word' : 'q= too broad (refused)', 'q=price', quick ? 200 : 400],
    ['type=', 'type=USER_REPORT', 200], ['status=', 'status=5xx', 200], ['tag.plan=', 'tag.plan=pro', 200],
    ...(search.issue ? [['issue=', `issue=${search.issue}`, 200] as [string, string, number]] : []),
  ]
  const pairs: [string, string, number][] = [
    ['errors&country', 'errors=true&country=DE', 200], ['browser&os', 'browser=chrome&os=windows', 200], ['q&country', 'q=%22pay%20button%22&country=FR', 200],
    ['type&errors', 'type=USER_REPORT&errors=true', 200], ['status&tag', 'status=5xx&tag.plan=pro', 200], ['url&errors', 'url=checkout&errors=true', 200],
    ['user&errors', `user=${search.user}&errors=true`, 200], ['date&q', `date=${busyDay}&q=%22pay%20button%22`, 200], ['date&errors', `date=${busyDay}&errors=true`, 200],
  ]
  return [...single.map(([n, q, st]): [string, string, number] => [`search: ${n}`, q, st]),
    ...pairs.map(([n, q, st]): [string, string, number] => [`search2: ${n}`, q, st])]
}
