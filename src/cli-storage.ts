/**
 * `sessionwatch storage check [--fix] [--json]` and `storage migrate --to URL [--json]` (src/recording/storage.ts does
 * the work): results on standard output, progress on standard error.
 */
import path from 'node:path'
import type { Kysely } from 'kysely'
import { args, required, UsageError } from './cli-options.ts'
import type { Config } from './config.ts'
import type { Database } from './database.ts'
import { ORPHAN_MIN_AGE_MS } from './recording/limits.ts'
import { checkStorage, megabytes, migrateStorage, type CheckReport, type MigrateReport } from './recording/storage.ts'
import { parseStoreUrl, type RecordingStores } from './recording/store/index.ts'

export interface StorageIo { print: (line: string) => void; note: (line: string) => void }

/** Runs `storage check` or `storage migrate`; resolves to the exit code. */
export async function storageCommand(
  db: Kysely<Database>, config: Config, stores: RecordingStores, sub: string | undefined, rest: string[], io: StorageIo,
): Promise<number> {
  if (sub === 'check') {
    const { values } = args(rest, { fix: { type: 'boolean' }, json: { type: 'boolean' } })
    const report = await checkStorage(db, stores, { fix: values.fix === true, now: Date.now(), progress: io.note })
    if (values.json) io.print(JSON.stringify(report))
    else describeCheck(report, io.print)
    return report.fixed || report.orphans.length + report.missing.length === 0 ? 0 : 1
  }
  if (sub === 'migrate') {
    const { values } = args(rest, { to: { type: 'string' }, json: { type: 'boolean' } })
    const to = parseStoreUrl(required(values, 'to'), (p) => path.resolve(p))
    if (typeof to === 'string') throw new UsageError(`--to ${to}`)
    const from = config.recordings.store.url
    if (to.url === from) {
      throw new UsageError(`RECORDINGS_URL already names ${from}: --to must name another store (to move chunks left in an older `
        + 'store, run with RECORDINGS_URL set to that store)')
    }
    const report = await migrateStorage(db, stores, to, { progress: io.note })
    if (values.json) io.print(JSON.stringify(report))
    else describeMigration(report, io.print)
    return 0
  }
  throw new UsageError(`unknown command "storage${sub === undefined ? '' : ` ${sub}`}"`)
}

function describeCheck(report: CheckReport, print: (line: string) => void): void {
  for (const o of report.orphans) print(`orphan  ${o.store}  ${o.key}  ${o.bytes} bytes`)
  for (const m of report.missing) print(`missing  ${m.store}  project ${m.project} session ${m.session} chunk ${m.chunk}`)
  const orphanBytes = report.orphans.reduce((sum, o) => sum + o.bytes, 0)
  const fixed = report.fixed ? ': removed' : ''
  print(`orphans: ${report.orphans.length} objects no chunk row names (${megabytes(orphanBytes)})${fixed}`)
  print(`missing: ${report.missing.length} chunks whose object their store does not have`
    + (report.fixed ? ': marked dropped (missing), so the API no longer lists them' : ''))
  print(`young: ${report.young} unnamed objects younger than ${ORPHAN_MIN_AGE_MS / 60_000} minutes, left alone (a chunk being written)`)
  if (!report.fixed && report.orphans.length + report.missing.length > 0) {
    print('Run sessionwatch storage check --fix to delete the orphans and mark the missing chunks dropped.')
  }
}

function describeMigration(r: MigrateReport, print: (line: string) => void): void {
  print(`moved ${r.moved} chunks (${megabytes(r.bytes)}) from ${r.from} to ${r.to}`)
  if (r.gone > 0) print(`${r.gone} chunks were deleted while moving them (retention, erasure): nothing to move`)
  if (r.missing > 0) print(`${r.missing} chunks' objects are missing from ${r.from} and stay where they were: sessionwatch storage check --fix marks them dropped`)
  if (r.left > 0) print(`${r.left} chunks arrived in ${r.from} while moving: run the same command again`)
  print(`Now set RECORDINGS_URL=${r.to} and restart the service. Chunks it writes until then still go to ${r.from}; after `
    + `the restart, run RECORDINGS_URL=${r.from} sessionwatch storage migrate --to ${r.to} once more.`)
}
