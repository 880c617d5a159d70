/**
 * A search by text alone (`url=`, `q=`: no other filter, no from/to range) in one statement, where the engine gains
 * by it (src/db/sql.ts answersTextsInOneStatement: PostgreSQL). searchByPlan (list.ts) answers it in four: the
 * trigram index's matches as ids, those past retention, the project's visits, and the page with the ids as its
 * parameter — each a round trip, and 5,030 ids through the service and back (q="pay button" on the 1M-visit
 * benchmark: ~5.5 ms of 25.8 at the client, docs/performance.md). Here the matches stay in the statement, and the page is read the way
 * searchByPlan would plan it from the count, each of its three ways a branch that runs only when the count chose it
 * (a condition on the count alone, which PostgreSQL checks once, before the branch).
 */
import { sql } from 'kysely'
import type { Db } from '../db/database.ts'
import { SEARCH_TEXT_MATCH_LIMIT } from '../../common/limits.ts'
import { answersTextsInOneStatement, inRows, rowReadInProbes, textMatchRows, unindexed } from '../db/sql.ts'
import { liveCount } from './count.ts'
import { textFilters, tooBroad } from './texts.ts'
import { byKeys, fromVisits, isFiltered, liveSessions, SPARSE_WALK, type SessionFilters, type SessionPage, type SessionRange } from './list.ts'
import { sessionColumns, type SessionListRow } from '../visits/tables.ts'

/** Whether searchTextsAlone answers these filters over this range on this engine. */
export const textsAlone = (db: Db, range: SessionRange, filters: SessionFilters): boolean => answersTextsInOneStatement(db)
  && range.from === undefined && range.to === undefined && textFilters(filters).length > 0
  && !isFiltered({ ...filters, url: undefined, q: undefined })

/**
 * The page and exact total of a search by text alone: as searchByPlan answers it (each text's matches read from the
 * trigram index, at most SEARCH_TEXT_MATCH_LIMIT rows of text each, else refused naming it; the visits in all of
 * them, less those past retention), in one statement.
 */
export async function searchTextsAlone(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }> {
  const texts = textFilters(filters)
  const most = SEARCH_TEXT_MATCH_LIMIT
  const text = (i: number) => sql.raw(`text_${String(i)}`)
  const found = texts.map((_, i) => sql`(select count(*) from ${text(i)})`)
  // The visits in every text's matches, none when a text matched too many rows to count.
  const inAll = [...found.map((n) => sql`${n} <= ${most}`), ...texts.slice(1).map((_, i) => sql`text_0.session_id in (select session_id from ${text(i + 1)})`)]
  const matched = sql<{ session_id: string }>`select session_id from text_matches`
  const expired = db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', projectId)
    .where('last_seen_at', '<', range.cutoff).where(inRows(db, 'id', matched))
  // searchByPlan's plan from the count (T) and the project's visits (V), for its one driver, the matches (no other filter
  // to probe: its `probes` is 1): from the matches when reading each one's row costs less than the entries a walk of
  // the list order passes for the page; a walk by keys when few of the visits it passes match. The weights are written
  // as literals: a bound parameter would take the type of the count it multiplies (bigint), which a tuned 2.5 is not.
  const total = sql`(text_counts.matched - text_counts.expired)`
  const visits = sql`cast(text_counts.visits as double precision)`
  const walked = sql`least(${visits}, ${page.limit + page.offset} * ${visits} / greatest(${total}, 1))`
  const readsRows = sql<boolean>`${total} * ${sql.lit(rowReadInProbes(db))} < ${walked}`
  const fromMatches = sql<boolean>`${total} > ${page.offset} and ${readsRows}`
  const walk = sql<boolean>`${total} > ${page.offset} and not ${readsRows}`
  const sparse = sql<boolean>`${visits} >= ${sql.lit(SPARSE_WALK)} * ${total}`
  const order = liveSessions(db, projectId, range, {}, { drive: 'order' }, page.after).where(inRows(db, 'id', matched))
    .orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset)
  const branches = [
    fromVisits(db, projectId, range, sql<{ session_id: string }>`(${matched})`, page.after).where(fromMatches)
      .orderBy(unindexed('sessions.last_seen_at'), 'desc').orderBy('sessions.id', 'desc').limit(page.limit).offset(page.offset),
    order.where(sql<boolean>`${walk} and not ${sparse}`),
    byKeys(db, projectId, order.where(sql<boolean>`${walk} and ${sparse}`)),
  ]
  // text_counts' columns beside the page's in each row: none of them is a session column's name. A word too broad still
  // has every text's matches counted (each bounded), where searchByPlan stops at the first: the refusal's cost is the
  // reading, ~10,001 rows of text a word.
  const { rows } = await sql<Record<string, unknown>>`with ${sql.join(texts.map((t, i) =>
    sql`${text(i)} as materialized (${textMatchRows(db, projectId, t.column, t.needle, most + 1)})`))},
    text_matches as materialized (select distinct text_0.session_id from text_0 where ${sql.join(inAll, sql` and `)}),
    text_counts as materialized (select ${sql.join(found.map((n, i) => sql`${n} as ${sql.raw(`found_${String(i)}`)}`))},
      (select count(*) from text_matches) as matched, (${expired}) as expired, ${liveCount(db, projectId, range)} as visits)
    select text_counts.*, page.* from text_counts left join lateral (${sql.join(branches, sql` union all `)}) as page on true
    order by page.last_seen_at desc, page.id desc`.execute(db)
  const [counts] = rows
  if (!counts) throw new Error('searchTextsAlone: the statement returned no row of counts')
  texts.forEach((t, i) => { if (Number(counts[`found_${String(i)}`]) > most) throw tooBroad(t) })
  return {
    total: Number(counts.matched) - Number(counts.expired),
    rows: rows.filter((r) => r.id !== null).map((r) => Object.fromEntries(sessionColumns.map((c) => [c, r[c]]))) as SessionListRow[],
  }
}
