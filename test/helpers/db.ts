import { loadConfig, type Engine } from '../../src/config.ts'
import { openDatabase, type DatabaseHandle, type OpenOptions } from '../../src/db/connect.ts'
import { createTestDatabase } from './databases.ts'

/** A real, migrated database of the given engine, for store tests. */
export async function openTestDatabase(engine: Engine, options: OpenOptions = {}): Promise<DatabaseHandle & { dispose(): Promise<void> }> {
  const location = await createTestDatabase(engine)
  const handle = await openDatabase(loadConfig({ DATABASE_URL: location.url }).database, options)
  return { ...handle, dispose: async () => { await handle.close(); await location.cleanup() } }
}
