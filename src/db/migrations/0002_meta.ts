import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/** Service-wide facts that must be claimed once across processes (e.g. the first-run project). */
export const meta = ({ key }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('meta')
      .addColumn('key', key, (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute()
  },
})
