import { sql, type Kysely, type Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * The most a trigram index of session_texts keeps in its pending list, in kB (PostgreSQL's GIN `fastupdate`): a new
 * row's trigrams wait there, unsorted, until the list is this large and the inserting transaction moves them into the
 * index. Every search through the index reads the whole list first; at the server's default (4 MB) that is up to ~500
 * pages a search per index. On the 1M-visit benchmark a list of 306 pages took `url=`'s index scan from 2 ms to 11, and
 * cleaning both lists took `q=`'s match from 39–48 ms to 22.
 */
export const TEXT_INDEX_PENDING_KB = 256

/** PostgreSQL: the text indexes' pending lists bounded (TEXT_INDEX_PENDING_KB), and emptied once. SQLite: nothing. */
export const textIndexPending = ({ engine }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    if (engine !== 'postgres') return
    for (const index of ['session_texts_page_idx', 'session_texts_body_idx']) {
      await sql`alter index ${sql.ref(index)} set (gin_pending_list_limit = ${sql.lit(TEXT_INDEX_PENDING_KB)})`.execute(db)
      await sql`select gin_clean_pending_list(${sql.lit(index)}::regclass)`.execute(db)
    }
  },
})
