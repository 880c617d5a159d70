import type { DatabaseConfig } from './config.ts'
import type { Database } from './database.ts'
import { openDatabase as open, type DatabaseHandle as Handle, type OpenOptions } from './db/connect.ts'
import { keepListJson } from './visits/index.ts'

export type DatabaseHandle = Handle<Database>

/** Opens the configured engine with the service's schema at the latest version, the list JSON's trigger with it. */
export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<DatabaseHandle> {
  const handle = await open<Database>(config, options)
  try {
    await keepListJson(handle.db, options.onProgress)
  } catch (error) {
    await handle.close()
    throw error
  }
  return handle
}
