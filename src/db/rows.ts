import { sql, type Kysely, type Transaction } from 'kysely'

/**
 * Deletes every row of `tables`, in the order given, whose `project_id` is `projectId`: how the module that owns
 * them forgets a deleted project. Each table's primary key begins with project_id, so each delete reads only its rows.
 */
export async function deleteProjectRows<DB>(
  db: Kysely<DB> | Transaction<DB>, tables: readonly (keyof DB & string)[], projectId: string,
): Promise<void> {
  for (const table of tables) await sql`delete from ${sql.table(table)} where project_id = ${projectId}`.execute(db)
}
