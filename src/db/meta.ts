import type { Kysely, Transaction } from 'kysely'

/** Service-wide facts claimed once across processes. */
export interface MetaTable {
  key: string
  value: string
}

/** The table this module owns; the service's Database holds it. */
export interface MetaTables {
  meta: MetaTable
}

// Kysely's types are invariant in the schema: a database of more tables is read here as one of the meta table alone.
const metaOf = <DB extends MetaTables>(db: Kysely<DB> | Transaction<DB>): Kysely<MetaTables> => db as unknown as Kysely<MetaTables>

/**
 * Claims a one-time fact for the whole service: true for exactly one caller, even when several
 * processes race (the primary key decides).
 */
export async function claimOnce<DB extends MetaTables>(db: Kysely<DB> | Transaction<DB>, key: string, value: string): Promise<boolean> {
  const row = await metaOf(db).insertInto('meta').values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing()).returning('key').executeTakeFirst()
  return row !== undefined
}

/** The value of a one-time fact, or undefined when nobody has claimed it. */
export async function metaValue<DB extends MetaTables>(db: Kysely<DB> | Transaction<DB>, key: string): Promise<string | undefined> {
  return (await metaOf(db).selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst())?.value
}
