import type { RawBuilder } from 'kysely'

export type Engine = 'sqlite' | 'postgres'

/**
 * What a migration knows of the engine it runs on. Migrations keep their own engine branches instead of asking the
 * live dialect (src/db/dialect.ts): a shipped migration must do what it did, whatever the dialect becomes.
 */
export interface Target {
  engine: Engine
  /** Ids and keys: compared byte by byte on both engines (`collate "C"` on PostgreSQL). */
  key: RawBuilder<unknown>
  blob: RawBuilder<unknown>
}
