/*
 * `sessionwatch sourcemaps upload` (src/cli.ts runs the other commands): beside the service straight to its
 * database, or from a build machine over HTTP with the project's upload key.
 */
import type { Kysely } from 'kysely'
import { byteSize } from './util/limits.ts'
import { SOURCEMAP_LOOKUP_TTL_MS } from './sourcemaps/limits.ts'
import { parsePublicUrl, type Config } from './config.ts'
import type { Database } from './database.ts'
import { AppError } from './errors.ts'
import { regroupAfterUpload } from './issues/index.ts'
import * as projects from './projects/service.ts'
import { args, required, UsageError } from './cli-options.ts'
import { uploadOverHttp } from './sourcemaps/client.ts'
import { mapsInDirectory } from './sourcemaps/files.ts'
import { createResolver } from './sourcemaps/resolve.ts'
import { checkUploads, storeUploads } from './sourcemaps/service.ts'

/** What the CLI lends a command: its output lines and its database opener. */
export interface CliIo {
  print: (line: string) => void
  note: (line: string) => void
  withDatabase: (config: Config, run: (db: Kysely<Database>) => Promise<number>) => Promise<number>
}

/**
 * `sourcemaps upload`: every map under DIR checked here first (one bad map uploads none), then written straight to
 * the database with --project where the CLI runs beside the service, or sent over HTTP with the project's upload
 * key from a build machine (--endpoint and --key, or SESSIONWATCH_ENDPOINT and SESSIONWATCH_UPLOAD_KEY).
 */
export async function sourcemapsUpload(config: Config, rest: string[], io: CliIo): Promise<number> {
  const { print, note, withDatabase } = io
  const { values, positionals } = args(rest, {
    project: { type: 'string' }, 'url-prefix': { type: 'string' }, release: { type: 'string' }, endpoint: { type: 'string' }, key: { type: 'string' },
  }, 1)
  const dir = positionals[0]
  if (dir === undefined) throw new UsageError('sourcemaps upload needs the DIR the build wrote')
  let endpoint = config.uploadClient.endpoint
  if (values.endpoint !== undefined) {
    const parsed = parsePublicUrl(values.endpoint.trim())
    if ('problem' in parsed) throw new UsageError(`--endpoint ${JSON.stringify(values.endpoint)} ${parsed.problem}`)
    endpoint = parsed.value
  }
  const key = values.key ?? config.uploadClient.key
  if (endpoint === null && values.key !== undefined) throw new UsageError('--key goes with --endpoint URL (or SESSIONWATCH_ENDPOINT): where to upload')
  if (endpoint !== null) {
    if (values.project !== undefined) throw new UsageError('--project is for writing straight to the database; over HTTP the upload key names the project')
    if (key === null) throw new UsageError('uploading to an --endpoint needs the project\'s upload key: --key KEY or SESSIONWATCH_UPLOAD_KEY')
  }
  const urlPrefix = required(values, 'url-prefix')
  const found = await mapsInDirectory(dir, urlPrefix, values.release ?? null)
  if (found.length === 0) throw new AppError(400, 'invalid_parameter', `No *.map file under ${dir}: build with source maps (external) first`)
  const checkAll = async () => {
    note(`checking ${found.length} source maps…`)
    // Every map is checked before any is stored: one bad map stores nothing of the run.
    return checkUploads(found, (map) => {
      note(`  ${map.file} → ${map.url} (${byteSize(map.bytes)}${map.debugId === null ? '' : `, debug ID ${map.debugId}`})`)
    })
  }
  const total = (maps: readonly { bytes: number }[]) => byteSize(maps.reduce((n, m) => n + m.bytes, 0))
  if (endpoint !== null && key !== null) {
    const checked = await checkAll()
    note(`uploading ${checked.length} source maps to ${endpoint}…`)
    const stored = await uploadOverHttp(endpoint, key, checked, note)
    print(`uploaded ${stored.length} source maps (${total(stored)}) to ${endpoint}; its other processes use them within ${SOURCEMAP_LOOKUP_TTL_MS / 1000} s`)
    return 0
  }
  return withDatabase(config, async (db) => {
    const project = await projects.getProject(db, required(values, 'project'))
    const checked = await checkAll()
    const stored = await storeUploads(db, null, project.id, checked)
    const regrouped = await regroupAfterUpload(db, createResolver(db, { cacheBytes: config.sourceMapCacheBytes }), project.id)
    if (regrouped > 0) note(`${regrouped} existing issues now also match their bugs' mapped stacks`)
    print(`uploaded ${stored.length} source maps (${total(stored)}) to project ${project.id}; `
      + `a running service uses them within ${SOURCEMAP_LOOKUP_TTL_MS / 1000} s`)
    return 0
  })
}
