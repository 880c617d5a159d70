import Bowser from 'bowser'
import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely'
import type { Engine, Target } from './target.ts'

/**
 * Who the visit was and what it did, searchable (issue 13): the session's user, tags, release, environment,
 * entry page and parsed browser and OS; `session_terms` for the filters (has errors, has a recording, country,
 * browser, OS, event types, HTTP statuses, tags) with `term_days` counting each term's visits per start day,
 * so a filter's exact total costs no scan; `session_texts` with trigram indexes for `q=` and `url=` (FTS5 on SQLite, pg_trgm on
 * PostgreSQL, both serving case-insensitive substring search). Existing visits are filled in from their events.
 */
export const visitSearch = ({ engine, key }: Target): Migration => ({
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
    const parsed = Bowser.parse(user_agent)
    const [browser, os] = [parsed.browser.name || null, parsed.os.name || null]
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
