import type { Db } from './database.ts'

/**
 * Claims a one-time fact for the whole service: true for exactly one caller, even when several
 * processes race (the primary key decides).
 */
export async function claimOnce(db: Db, key: string, value: string): Promise<boolean> {
  const row = await db.insertInto('meta').values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing()).returning('key').executeTakeFirst()
  return row !== undefined
}

/** The value of a one-time fact, or undefined when nobody has claimed it. */
export async function metaValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst())?.value
}
