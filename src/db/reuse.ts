import { CompiledQuery, type Compilable, type Kysely, type QueryResult, type Transaction } from 'kysely'

/** SQL per dialect and statement shape: compiled by Kysely once, then run with fresh values. */
const compiled = new Map<unknown, Map<string, string>>()

/**
 * Runs a statement of the ingest hot path without building it again. Kysely's building and compiling
 * costs more than SQLite's running of a small statement (~40 µs for the live-session UPDATE, ~100 µs
 * for a 20-row INSERT): `build` runs only the first time a dialect meets `shape`, and later calls reuse
 * its SQL with `params`. `shape` must name everything that changes the SQL text (a row count, say), and
 * `params` must list the values in the order the SQL takes them: the first compile checks that it does.
 */
export async function runReused<R, DB>(db: Kysely<DB> | Transaction<DB>, shape: string, params: readonly unknown[], build: () => Compilable<R>): Promise<QueryResult<R>> {
  const adapter = db.getExecutor().adapter
  let byShape = compiled.get(adapter.constructor)
  if (!byShape) compiled.set(adapter.constructor, (byShape = new Map<string, string>()))
  let text = byShape.get(shape)
  if (text === undefined) {
    const query = build().compile()
    if (query.parameters.length !== params.length || query.parameters.some((v, k) => v !== params[k])) {
      throw new Error(`runReused(${shape}): the parameters are not in the order of the compiled SQL`)
    }
    text = query.sql
    byShape.set(shape, text)
  }
  return db.executeQuery<R>(CompiledQuery.raw(text, [...params]))
}
