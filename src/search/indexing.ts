/**
 * What makes a visit findable, written with its events (writeBatches): the terms of session_terms and the
 * text of session_texts. Private steps of the visit's write operation; the reads are in read.ts.
 */
import type { Insertable } from 'kysely'
import { LRUCache } from 'lru-cache'
import { INDEXED_TEXTS_CACHE_BYTES, SEARCH_INDEXED_CHARS } from './limits.ts'
import type { Db } from '../database.ts'
import { fnv1a } from '../util/hash.ts'
import { LRU_ENTRY_BYTES, OBJECT_BYTES, SET_ENTRY_BYTES, stringBytes } from '../util/memory.ts'
import { deleteProjectRows } from '../db/rows.ts'
import type { VitalName, VitalRating } from '../../common/vitals.ts'
import { ERROR_TYPES, type EventRecord, type VisitorFacts } from '../contract/index.ts'
import { visitKey, type DayDeltas } from './days.ts'
import type { SessionTextTable } from './tables.ts'

/** The terms of session_terms (see tables.ts), spelled once: reads build the same strings. */
export const term = {
  errors: 'has:errors',
  recording: 'has:recording',
  country: (code: string) => `c:${code}`,
  browser: (family: string) => `b:${family}`,
  os: (family: string) => `o:${family}`,
  type: (type: string) => `t:${type}`,
  status: (status: string) => `s:${status}`,
  tag: (key: string, value: string) => `g:${key}=${value}`,
  vital: (name: VitalName, rating: VitalRating) => `v:${name}:${rating}`,
}

/** What a visit's terms are derived from besides its events: its stored facts (country, browser, OS) and the batch's tags. */
export interface TermFacts {
  country: string | null
  browser: string | null
  os: string | null
  tags: VisitorFacts['tags']
}

/**
 * The terms a batch gives its visit: its event types and errors, its failed requests' statuses and classes, its web
 * vitals' metric and rating, the visit's facts, its tags.
 */
export function batchTerms(events: readonly EventRecord[], facts: TermFacts): Set<string> {
  const terms = new Set<string>()
  for (const e of events) {
    terms.add(term.type(e.type))
    if (ERROR_TYPES.includes(e.type)) terms.add(term.errors)
    if (e.type === 'HTTP_ERROR' && e.statusCode !== null) {
      terms.add(term.status(String(e.statusCode)))
      terms.add(term.status(`${Math.floor(e.statusCode / 100)}xx`))
    }
    if (e.type === 'WEB_VITAL' && e.detail?.name !== undefined && e.detail.rating !== undefined) terms.add(term.vital(e.detail.name, e.detail.rating))
  }
  if (facts.country !== null) terms.add(term.country(facts.country))
  if (facts.browser !== null) terms.add(term.browser(facts.browser))
  if (facts.os !== null) terms.add(term.os(facts.os))
  if (facts.tags) for (const [key, value] of Object.entries(facts.tags)) terms.add(term.tag(key, value))
  return terms
}

/**
 * The session row's part of term keeping: its id, its start day (what term_days counts by), its number (its bit in
 * term_bits) and its terms (JSON).
 */
export interface TermRow {
  id: string
  start_day: number
  num: number
  terms: string | null
}

/** A session row's terms as a list. */
export const termsOf = (row: { terms: string | null }): string[] => (row.terms === null ? [] : (JSON.parse(row.terms) as string[]))

/**
 * Adds the terms the visit does not have yet, counts them in `days` (term_days by the visit's start day, and its
 * bit in term_bits), which writes them with the transaction's others; returns the visit's terms now, and `row.terms`
 * then lists them too. The visit's terms are those `days` has for it, else its row's: a row read again in the same
 * transaction does not list them until then.
 */
export function addTerms(projectId: string, row: TermRow, terms: Set<string>, days: DayDeltas): string[] {
  const known = days.visitTerms(projectId, row.id) ?? termsOf(row)
  for (const t of known) terms.delete(t)
  if (terms.size === 0) return [...known]
  const fresh = [...terms]
  const all = [...known, ...fresh]
  // The row follows what is written: a visit's next batch in the group may be given the same row (write-live.ts).
  row.terms = JSON.stringify(all)
  days.setVisitTerms(projectId, row.id, all, fresh)
  for (const t of fresh) {
    days.addTerm(projectId, t, row.start_day, 1)
    days.markTerm(projectId, t, row.num, true)
  }
  return all
}

/**
 * Takes a term from the visits that have it (`rows` lists each one's terms, and follows the change): the reverse of
 * addTerms, for a fact a visit loses while it stays (its recording evicted).
 */
export async function dropTerm(trx: Db, projectId: string, rows: readonly TermRow[], t: string, days: DayDeltas): Promise<void> {
  const having = rows.filter((r) => termsOf(r).includes(t))
  if (having.length === 0) return
  await trx.deleteFrom('session_terms').where('project_id', '=', projectId).where('term', '=', t)
    .where('session_id', 'in', having.map((r) => r.id)).execute()
  for (const row of having) {
    row.terms = JSON.stringify(termsOf(row).filter((x) => x !== t))
    await trx.updateTable('sessions').set({ terms: row.terms }).where('project_id', '=', projectId).where('id', '=', row.id).execute()
    days.addTerm(projectId, t, row.start_day, -1)
    days.markTerm(projectId, t, row.num, false)
  }
}

/** Counts a visit's terms on its new start day instead of the old one (a late event moved its start). */
export function moveTerms(projectId: string, terms: readonly string[], from: number, to: number, days: DayDeltas): void {
  for (const t of terms) {
    days.addTerm(projectId, t, from, -1)
    days.addTerm(projectId, t, to, 1)
  }
}

/** Events whose URL is the page they happened on: it is searched as a page visited (`url=`). */
const ON_PAGE: ReadonlySet<string> = new Set(['NAVIGATION', 'WEB_VITAL', 'RAGE_CLICK', 'DEAD_CLICK'])

/**
 * The searchable text of a batch: the pages it visited (`url=`), and the rest `q=` searches besides them — event
 * messages and request URLs, the user id and traits. A page is stored once, in `page`: `q=` reads both columns.
 * A web vital's caption ("LCP 4.2 s (poor)") is not text: a number no one searches for, new in nearly every batch,
 * which the trigram index would pay for; `vital=` finds its metric and rating.
 */
export function batchTexts(events: readonly EventRecord[], seed: VisitorFacts): { pages: Set<string>; body: Set<string> } {
  const pages = new Set<string>()
  const body = new Set<string>()
  const add = (to: Set<string>, text: string | null) => { if (text) to.add(text.slice(0, SEARCH_INDEXED_CHARS)) }
  add(pages, seed.entryUrl)
  for (const e of events) {
    add(ON_PAGE.has(e.type) ? pages : body, e.url)
    if (e.type !== 'WEB_VITAL') add(body, e.message)
  }
  if (seed.user) {
    add(body, seed.user.id)
    for (const [key, value] of Object.entries(seed.user.traits ?? {})) add(body, `${key}: ${String(value)}`)
  }
  for (const page of pages) body.delete(page)
  return { pages, body }
}

/**
 * Texts each recent visit already has indexed, by a 32-bit hash: a visit repeats its clicks, pages and errors
 * batch after batch, and indexing each once keeps the trigram index's cost at ingest small. Filled only after
 * a commit (remember), so a rolled-back batch never hides text; a visit this process has not seen, or forgot,
 * has its text indexed again, which costs space but never a missed match.
 */
const INDEXED = new LRUCache<string, Set<number>>({
  maxSize: INDEXED_TEXTS_CACHE_BYTES,
  // Measured again each time rememberTexts adds to a visit's set (it sets the entry anew).
  sizeCalculation: (seen, visit) => LRU_ENTRY_BYTES + stringBytes(visit) + OBJECT_BYTES + seen.size * SET_ENTRY_BYTES,
})
/** Texts remembered per visit at most: a visit with more unique texts indexes the rest each time. */
const TEXTS_PER_VISIT = 500


export interface IndexedTexts {
  /** visitKey of the visit. */
  visit: string
  hashes: number[]
  /** The session_texts row: the batch's texts the visit has not indexed yet. */
  row: Insertable<SessionTextTable>
}

/**
 * The batch's texts the visit has not indexed yet, as one session_texts row (`part`: the batch's first seq, unique
 * in the visit) with what to remember once the transaction commits; null when it has none.
 */
function newTexts(projectId: string, sessionId: string, part: number, texts: { pages: Set<string>; body: Set<string> }): IndexedTexts | null {
  const visit = visitKey(projectId, sessionId)
  const seen = INDEXED.get(visit)
  const fresh = (set: Set<string>, prefix: string) => [...set].filter((t) => !seen?.has(fnv1a(prefix + t)))
  const pages = fresh(texts.pages, 'p')
  const body = fresh(texts.body, 'b')
  if (pages.length === 0 && body.length === 0) return null
  return {
    visit, hashes: [...pages.map((t) => fnv1a(`p${t}`)), ...body.map((t) => fnv1a(`b${t}`))],
    row: { project_id: projectId, session_id: sessionId, part, page: pages.join('\n'), body: body.join('\n') },
  }
}

/** Text rows per INSERT: 5 parameters each, well under both engines' limits. */
const TEXT_CHUNK = 200

/**
 * Writes the texts of a group's stored batches, once, last before the commit. Not in each batch's savepoint: SQLite's
 * FTS5 writes its pending index out as a new segment at every savepoint release (67 µs a batch, and more segments
 * to merge at each commit, measured); once per group it is one segment. A batch rolled back never got here.
 *
 * A row's part is its batch's first seq, unique for batches with events. Batches without (a recording chunk, an
 * identify before the first event) share theirs with the batch after them (textPart): rows of one part in the group
 * are joined, and a row whose part is already stored goes below the visit's lowest part instead of being dropped.
 */
export async function insertTexts(trx: Db, indexed: readonly IndexedTexts[]): Promise<void> {
  const rows = new Map<string, Insertable<SessionTextTable>>()
  for (const { row } of indexed) {
    const key = textKey(row)
    const same = rows.get(key)
    rows.set(key, same ? { ...same, page: joinText(same.page, row.page), body: joinText(same.body, row.body) } : row)
  }
  const all = [...rows.values()]
  for (let i = 0; i < all.length; i += TEXT_CHUNK) {
    const chunk = all.slice(i, i + TEXT_CHUNK)
    const stored = await trx.insertInto('session_texts').values(chunk)
      .onConflict((oc) => oc.columns(['project_id', 'session_id', 'part']).doNothing()).returning(['project_id', 'session_id', 'part']).execute()
    if (stored.length === chunk.length) continue
    const done = new Set(stored.map(textKey))
    for (const row of chunk) if (!done.has(textKey(row))) await insertBelow(trx, row)
  }
}

/** A text row's primary key, as one string. */
const textKey = (row: { project_id: string; session_id: string; part: number }): string => `${visitKey(row.project_id, row.session_id)}\u0000${row.part}`

const joinText = (a: string | null | undefined, b: string | null | undefined): string => [a, b].filter((t) => t).join('\n')

/** A text row whose part is taken: stored under the visit's lowest part, less one (rare: see insertTexts). */
async function insertBelow(trx: Db, row: Insertable<SessionTextTable>): Promise<void> {
  const lowest = await trx.selectFrom('session_texts').select((eb) => eb.fn.min('part').as('part'))
    .where('project_id', '=', row.project_id).where('session_id', '=', row.session_id).executeTakeFirst()
  // Another process writing this visit's text at the same moment could take that part too: a search text is never
  // worth failing the group for.
  await trx.insertInto('session_texts').values({ ...row, part: Math.min(0, lowest?.part ?? 0) - 1 })
    .onConflict((oc) => oc.columns(['project_id', 'session_id', 'part']).doNothing()).execute()
}

/**
 * The part of a batch's text row: its first seq when it has events. Without events its seq would be the next
 * batch's first, so it takes the negative of that, less one: apart from every batch with events.
 */
const textPart = (base: number, events: number): number => (events > 0 ? base : -base - 1)

/** Remembers texts a committed transaction indexed. */
export function rememberTexts(indexed: readonly IndexedTexts[]): void {
  for (const { visit, hashes } of indexed) {
    const seen = INDEXED.get(visit) ?? new Set<number>()
    for (const h of hashes) if (seen.size < TEXTS_PER_VISIT) seen.add(h)
    INDEXED.set(visit, seen)
  }
}

/** Forgets deleted visits, so a session id used again (import) indexes its text anew. */
export function forgetTexts(projectId: string, sessionIds: readonly string[]): void {
  for (const id of sessionIds) INDEXED.delete(visitKey(projectId, id))
}

/**
 * Makes a batch findable, in its savepoint: its terms (from its events, the visit's stored facts and the batch's
 * tags); its new text joins `indexed`, for insertTexts. Returns the visit's terms now.
 */
export function indexBatch(
  job: { projectId: string; events: readonly EventRecord[]; seed: VisitorFacts }, row: TermRow, facts: TermFacts, part: number,
  days: DayDeltas, indexed: IndexedTexts[],
): string[] {
  const terms = addTerms(job.projectId, row, batchTerms(job.events, facts), days)
  const texts = newTexts(job.projectId, row.id, textPart(part, job.events.length), batchTexts(job.events, job.seed))
  if (texts) indexed.push(texts)
  return terms
}

/**
 * Deletes every search row of a project being deleted (src/projects/delete.ts), its visits already gone: what a
 * deleted visit left, such as a counter another process wrote beside the deletion. SQLite's text index follows
 * session_texts through its trigger.
 */
export const forgetProject = (trx: Db, projectId: string): Promise<void> => deleteProjectRows(trx,
  ['session_terms', 'session_texts', 'term_bits', 'term_days', 'session_days'], projectId)
