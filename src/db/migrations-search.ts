import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely'
import type { Engine } from '../config.ts'
import { userAgentFamilies } from '../visits/index.ts'
import { BITS_PER_CHUNK } from './bits.ts'

/**
 * Who the visit was and what it did, searchable (issue 13): the session's user, tags, release, environment,
 * entry page and parsed browser and OS; `session_terms` for the filters (has errors, has a recording, country,
 * browser, OS, event types, HTTP statuses, tags) with `term_days` counting each term's visits per start day,
 * so a filter's exact total costs no scan; `session_texts` with trigram indexes for `q=` and `url=` (FTS5 on SQLite, pg_trgm on
 * PostgreSQL, both serving case-insensitive substring search). Existing visits are filled in from their events.
 */
export const visitSearch = (engine: Engine, key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    for (const column of ['entry_url', 'browser', 'os', 'user_id', 'user_traits', 'tags', 'release', 'environment', 'terms']) {
      await db.schema.alterTable('sessions').addColumn(column, 'text').execute()
    }
    // `user=`: exact ids, few visits each. Partial, so only a query naming user_id can use it; it holds no
    // last_seen_at, so the per-batch UPDATE never touches it.
    await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['project_id', 'user_id'])
      .where(sql.ref('user_id'), 'is not', null).execute()
    // errors= and recording= are terms now (has:errors, has:recording), counted per day: the partial list-order
    // indexes they replace were rewritten by every batch of a broken visit, and counting them was a scan.
    await db.schema.dropIndex('sessions_errors_idx').execute()
    await db.schema.dropIndex('sessions_recording_idx').execute()
    await db.schema.createTable('session_terms')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('term', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addPrimaryKeyConstraint('session_terms_pk', ['project_id', 'term', 'session_id'])
      .$call((t) => (engine === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute()
    await db.schema.createTable('term_days')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('term', key, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('term_days_pk', ['project_id', 'term', 'day'])
      .execute()
    await db.schema.createTable('session_texts')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('part', 'integer', (c) => c.notNull())
      .addColumn('page', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_texts_pk', ['project_id', 'session_id', 'part'])
      .execute()
    // The existing visits' search data first, then the text indexes over it, built once rather than row by row.
    await fillSearch(engine, db)
    if (engine === 'sqlite') {
      // An external-content index: the text is stored once, in session_texts; triggers keep the index in step.
      // Full detail: a quoted string MATCHes as a substring from the index alone. With detail=none every candidate
      // row had to be read back and checked (14 µs per matching visit on 1M visits, against ~1 µs).
      await sql`create virtual table session_fts using fts5(page, body, content='session_texts', content_rowid='rowid',
        tokenize='trigram')`.execute(db)
      await sql`insert into session_fts(session_fts) values ('rebuild')`.execute(db)
      await sql`create trigger session_texts_ai after insert on session_texts begin
        insert into session_fts(rowid, page, body) values (new.rowid, new.page, new.body); end`.execute(db)
      await sql`create trigger session_texts_ad after delete on session_texts begin
        insert into session_fts(session_fts, rowid, page, body) values ('delete', old.rowid, old.page, old.body); end`.execute(db)
    } else {
      await sql`create extension if not exists pg_trgm`.execute(db)
      await sql`create index session_texts_page_idx on session_texts using gin (page gin_trgm_ops)`.execute(db)
      await sql`create index session_texts_body_idx on session_texts using gin (body gin_trgm_ops)`.execute(db)
    }
  },
})

/**
 * Fills the search columns and tables of visits stored without them, from their events: those stored before 0009,
 * and the benchmark's, which it writes straight into the tables.
 */
export async function fillSearch(engine: Engine, db: Kysely<unknown>): Promise<void> {
  await sql`update sessions set entry_url = (select e.url from events e where e.project_id = sessions.project_id
    and e.session_id = sessions.id and e.type = 'NAVIGATION' and e.url is not null order by e.created_at, e.seq limit 1)`.execute(db)
  const agents = await sql<{ user_agent: string }>`select distinct user_agent from sessions where user_agent is not null`.execute(db)
  for (const { user_agent } of agents.rows) {
    const { browser, os } = userAgentFamilies(user_agent)
    await sql`update sessions set browser = ${browser}, os = ${os} where user_agent = ${user_agent}`.execute(db)
  }
  const status = engine === 'postgres' ? sql`status_code::text` : sql`cast(status_code as text)`
  const statusClass = engine === 'postgres' ? sql`(status_code / 100)::text || 'xx'` : sql`cast(status_code / 100 as text) || 'xx'`
  await sql`insert into session_terms (project_id, term, session_id)
    select distinct project_id, 't:' || type, session_id from events
    union select distinct project_id, 's:' || ${status}, session_id from events where type = 'HTTP_ERROR' and status_code is not null
    union select distinct project_id, 's:' || ${statusClass}, session_id from events where type = 'HTTP_ERROR' and status_code is not null
    union all select project_id, 'has:errors', id from sessions where events_errors > 0
    union all select project_id, 'has:recording', id from sessions where recording_chunks > 0
    union all select project_id, 'c:' || country, id from sessions where country is not null
    union all select project_id, 'b:' || browser, id from sessions where browser is not null
    union all select project_id, 'o:' || os, id from sessions where os is not null`
    .execute(db)
  await sql`insert into term_days (project_id, term, day, sessions)
    select t.project_id, t.term, s.start_day, count(*) from session_terms t
      join sessions s on s.project_id = t.project_id and s.id = t.session_id
    group by t.project_id, t.term, s.start_day`.execute(db)
  const termList = engine === 'postgres' ? sql`json_agg(term order by term)::text` : sql`json_group_array(term)`
  // One grouped pass: session_terms is keyed by term, so a lookup per session would scan it once per session.
  await sql`update sessions set terms = x.terms from (select project_id, session_id, ${termList} as terms from session_terms
    group by project_id, session_id) x where sessions.project_id = x.project_id and sessions.id = x.session_id`.execute(db)
  const joined = (expr: RawBuilder<unknown>) => (engine === 'postgres'
    ? sql`coalesce(string_agg(distinct ${expr}, E'\n'), '')` : sql`coalesce(group_concat(${expr}, char(10)), '')`)
  const texts = (select: RawBuilder<unknown>) => sql`(select ${joined(sql`x.v`)} from (${select}) x)`
  const events = sql`from events e where e.project_id = s.project_id and e.session_id = s.id`
  await sql`insert into session_texts (project_id, session_id, part, page, body)
    select s.project_id, s.id, 0, ${texts(sql`select distinct e.url as v ${events} and e.type = 'NAVIGATION' and e.url is not null`)},
      ${texts(sql`select e.message as v ${events} and e.message is not null
        union select e.url ${events} and e.url is not null and e.type <> 'NAVIGATION'`)}
    from sessions s where s.events_total > 0`.execute(db)
}


/**
 * Term bitmaps (issue 13: two broad filters' exact total): each visit gets a number (`sessions.num`), and `term_bits`
 * holds each project's and term's visits as bits at their numbers (src/db/bits.ts), in chunks of BITS_PER_CHUNK. A
 * number is never reused while its visit is stored: PostgreSQL draws it from a sequence, SQLite takes one past the
 * largest through a unique index (its one writer at a time). Existing visits are numbered and their bits filled.
 */
export const termBits = (engine: Engine, key: RawBuilder<unknown>): Migration => ({
  async up(db: Kysely<unknown>) {
    if (engine === 'postgres') {
      const { rows: [version] } = await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(db)
      if (Number(version?.v) < 140000) {
        throw new Error(`PostgreSQL ${String(version?.v)} has no bit_count, which the search's term bitmaps count with: Sessionwatch needs PostgreSQL 14 or later`)
      }
    }
    await db.schema.alterTable('sessions').addColumn('num', 'bigint').execute()
    if (engine === 'postgres') {
      await sql`create sequence session_nums`.execute(db)
      // A process of an earlier version still writing during an upgrade numbers its visits too (it writes no bits:
      // fillTermBits mends that). PostgreSQL needs no index on num, the sequence numbers; one would be rewritten by
      // every batch's UPDATE of the row (lastSeenAt is indexed, so no update is HOT).
      await sql`alter table sessions alter column num set default nextval('session_nums')`.execute(db)
    } else {
      await db.schema.createIndex('sessions_num_uq').unique().on('sessions').column('num').execute()
    }
    await db.schema.createTable('term_bits')
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('term', key, (c) => c.notNull())
      .addColumn('chunk', 'integer', (c) => c.notNull())
      .addColumn('bits', engine === 'postgres' ? sql.raw(`bit(${BITS_PER_CHUNK})`) : sql`blob`, (c) => c.notNull())
      .addPrimaryKeyConstraint('term_bits_pk', ['project_id', 'term', 'chunk'])
      // A rowid table on SQLite, unlike session_terms: rows of 1 KB sit poorly in a WITHOUT ROWID table's index pages.
      .execute()
    await fillTermBits(engine, db)
    // SQLite cannot add the constraint to an existing column; its writers all set num (nextSessionNum).
    if (engine === 'postgres') await sql`alter table sessions alter column num set not null`.execute(db)
  },
})

/**
 * Numbers the visits stored without a number (those stored before 0013, and the benchmark's, which it writes straight
 * into the tables) and writes term_bits anew from session_terms in one statement, grouped by chunk, each chunk's bits
 * gathered by an aggregate (PostgreSQL's bit_or of set_bit, SQLite's sw_bits_agg of sqlite.ts). Run again, it mends
 * bitmaps that drifted.
 */
export async function fillTermBits(engine: Engine, db: Kysely<unknown>): Promise<void> {
  const size = sql.lit(BITS_PER_CHUNK)
  if (engine === 'postgres') {
    await sql`update sessions set num = nextval('session_nums') where num is null`.execute(db)
  } else {
    const { rows: [top] } = await sql<{ n: number | null }>`select max(num) as n from sessions`.execute(db)
    await sql`update sessions set num = ${top?.n ?? 0} + rowid where num is null`.execute(db)
  }
  await sql`delete from term_bits`.execute(db)
  const bit = sql`s.num % ${size}`
  const chunk = engine === 'postgres'
    ? sql`bit_or(set_bit(cast(B'0' as bit(${size})), cast(${bit} as integer), 1))`
    : sql`sw_bits_agg(${bit})`
  await sql`insert into term_bits (project_id, term, chunk, bits)
    select t.project_id, t.term, s.num / ${size}, ${chunk}
    from session_terms t join sessions s on s.project_id = t.project_id and s.id = t.session_id
    group by t.project_id, t.term, s.num / ${size}`.execute(db)
}

/**
 * The most a trigram index of session_texts keeps in its pending list, in kB (PostgreSQL's GIN `fastupdate`): a new
 * row's trigrams wait there, unsorted, until the list is this large and the inserting transaction moves them into the
 * index. Every search through the index reads the whole list first; at the server's default (4 MB) that is up to ~500
 * pages a search per index. On the 1M-visit benchmark a list of 306 pages took `url=`'s index scan from 2 ms to 11, and
 * cleaning both lists took `q=`'s match from 39–48 ms to 22.
 */
export const TEXT_INDEX_PENDING_KB = 256

/** PostgreSQL: the text indexes' pending lists bounded (TEXT_INDEX_PENDING_KB), and emptied once. SQLite: nothing. */
export const textIndexPending = (engine: Engine): Migration => ({
  async up(db: Kysely<unknown>) {
    if (engine !== 'postgres') return
    for (const index of ['session_texts_page_idx', 'session_texts_body_idx']) {
      await sql`alter index ${sql.ref(index)} set (gin_pending_list_limit = ${sql.lit(TEXT_INDEX_PENDING_KB)})`.execute(db)
      await sql`select gin_clean_pending_list(${sql.lit(index)}::regclass)`.execute(db)
    }
  },
})

/**
 * The list JSON 0015 kept in each session's row, and the trigger(s) that wrote it: the response schema's serializer
 * writes a session now. The triggers go first, since SQLite drops no column a trigger reads.
 */
const dropSessionListJson = (engine: Engine): Migration => ({
  async up(db: Kysely<unknown>) {
    const statements = engine === 'postgres'
      ? ['drop trigger if exists sessions_list_json on sessions', 'drop function if exists sessionwatch_sessions_list_json()']
      : ['drop trigger if exists sessions_list_json_insert', 'drop trigger if exists sessions_list_json_update']
    for (const statement of statements) await sql.raw(statement).execute(db)
    await db.schema.alterTable('sessions').dropColumn('list_json').execute()
    await sql`delete from meta where key = 'sessions.list_json'`.execute(db)
  },
})

/** A session's list JSON, kept in its row from 0015 to 0020. */
export const listJsonMigrations = (engine: Engine): Record<string, Migration> => ({
  '0015_session_list_json': { up: async (db: Kysely<unknown>) => { await db.schema.alterTable('sessions').addColumn('list_json', 'text').execute() } },
  '0020_drop_session_list_json': dropSessionListJson(engine),
})
