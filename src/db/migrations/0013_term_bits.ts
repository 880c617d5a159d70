import { sql, type Kysely, type Migration } from 'kysely'
import type { Engine, Target } from './target.ts'

/** Visits a stored bitmap chunk holds (src/db/bits.ts): the stored chunks are written in this size. */
const BITS_PER_CHUNK = 8192

/**
 * Term bitmaps (issue 13: two broad filters' exact total): each visit gets a number (`sessions.num`), and `term_bits`
 * holds each project's and term's visits as bits at their numbers (src/db/bits.ts), in chunks of BITS_PER_CHUNK. A
 * number is never reused while its visit is stored: PostgreSQL draws it from a sequence, SQLite takes one past the
 * largest through a unique index (its one writer at a time). Existing visits are numbered and their bits filled.
 */
export const termBits = ({ engine, key }: Target): Migration => ({
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
 * gathered by an aggregate (PostgreSQL's bit_or of set_bit, SQLite's sw_bits_agg). Run again, it mends
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
