import { openDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import type { Engine } from '../../src/config.ts'
import { loadConfig } from '../../src/config.ts'
import { databaseUrl } from './app.ts'

/** A real, migrated database of the given engine, for store tests. */
export async function openTestDatabase(engine: Engine): Promise<DatabaseHandle & { dispose(): Promise<void> }> {
  const location = databaseUrl(engine)
  const handle = await openDatabase(loadConfig({ DATABASE_URL: location.url }).database)
  return { ...handle, dispose: async () => { await handle.close(); location.cleanup() } }
}
