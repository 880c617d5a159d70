import fs from 'node:fs'
import readline from 'node:readline'
import type { Kysely } from 'kysely'
import { byteSize } from './util/limits.ts'
import { SWEEP_BATCH } from './visits/limits.ts'
import { loadConfig, ConfigError, type Config } from './config.ts'
import { openDatabase, type Database } from './database.ts'
import { AppError } from './errors.ts'
import * as projects from './projects/service.ts'
import * as webhooks from './alerts/service.ts'
import { sweep } from './retention/service.ts'
import { openStores, type RecordingStores } from './recording/store/index.ts'
import { purgeTrash } from './recording/upkeep.ts'
import { serve } from './server.ts'
import { exportSessions, importSessions } from './transfer/service.ts'
import { firstRun } from './first-run.ts'
import { changeStatus, STATUS_OF_ACTION } from './issues/service.ts'
import { ensureOwner } from './accounts/service.ts'
import { describeKeys, describeProject, describeUploadKey, withDsn } from './projects/format.ts'
import { eraseKind, eraseVisitor } from './privacy/service.ts'
import { args, PROJECT_FIELDS, projectFields, required, UsageError } from './cli-options.ts'
import { createResolver } from './sourcemaps/resolve.ts'
import { sourceMapMapper } from './issues/index.ts'
import { deleteMaps, listMaps } from './sourcemaps/service.ts'
import { UploadError } from './sourcemaps/client.ts'
import { sourcemapsUpload } from './cli-sourcemaps.ts'
import { USAGE } from './cli-usage.ts'
import { recordingUsage } from './visits/index.ts'
import { storageCommand } from './cli-storage.ts'
import { projectDelete } from './cli-projects.ts'
import { auditCommand, userCommand } from './cli-users.ts'
import { audit, CLI_ACTOR, sweepAudit } from './audit/service.ts'


// For scripts/build.mjs, which imports the bundle of this file: dist/sdk.js and dist/sdk.mjs are written by the
// code that serves /sdk.js and /sdk.mjs.
export { writeSdkFiles } from './assets/bundle.ts'

/** Where a command reads its input and writes what it prints: the process's own, or a test's. */
export interface Streams {
  stdin: NodeJS.ReadableStream
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

/** Runs one CLI command; resolves to the process exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, streams: Streams = process): Promise<number> {
  const [command, ...rest] = argv
  const { stdout, stderr } = streams
  const io: Io = {
    ...streams,
    print: (line) => { stdout.write(`${line}\n`) },
    note: (line) => { stderr.write(`${line}\n`) },
  }
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      stdout.write(`${USAGE}\n`)
      return command === undefined ? 1 : 0
    }
    const config = loadConfig(env)
    if (command === 'serve') {
      await serve(config, firstRun)
      return 0
    }
    // Over HTTP from a build machine, it needs no database.
    if (command === 'sourcemaps' && rest[0] === 'upload') return await sourcemapsUpload(config, rest.slice(1), { ...io, withDatabase })
    return await withDatabase(config, async (db) => {
      const stores = await openStores(db, config.recordings)
      try {
        return await runCommand(db, config, stores, io, command, rest)
      } finally {
        await stores.close()
      }
    })
  } catch (error) {
    if (error instanceof UsageError) {
      stderr.write(`sessionwatch: ${error.message}\n\n${USAGE}\n`)
      return 2
    }
    if (error instanceof ConfigError || error instanceof AppError || error instanceof UploadError) {
      stderr.write(`sessionwatch: ${error.message}\n`)
      return error instanceof ConfigError ? 78 : 1
    }
    stderr.write(`sessionwatch: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

async function withDatabase(config: Config, run: (db: Kysely<Database>) => Promise<number>): Promise<number> {
  const handle = await openDatabase(config.database)
  try {
    return await run(handle.db)
  } finally {
    await handle.close()
  }
}

/** Where a Sentry SDK reaches this server, for the DSNs the CLI prints: PUBLIC_URL, else this machine on PORT. */
const publicBase = (config: Config): string => config.publicUrl ?? `http://localhost:${config.port}`

/** A command's streams, and a line to standard output (`print`) or to standard error (`note`). */
interface Io extends Streams {
  print: (line: string) => void
  note: (line: string) => void
}

/** Every command gets the one frozen Config `main` parsed, as `serve` does: nothing here reads the environment. */
async function runCommand(db: Kysely<Database>, config: Config, stores: RecordingStores, io: Io, command: string, rest: string[]): Promise<number> {
  const { print, note } = io
  const sub = rest[0]
  if (command === 'project' && sub === 'create') {
    const { values } = args(rest.slice(1), { ...PROJECT_FIELDS, json: { type: 'boolean' } })
    const created = await projects.changeProjects(db, async (trx) => {
      const made = await projects.createProject(trx, { ...projectFields(values), name: required(values, 'name'), domain: required(values, 'domain') })
      await audit(trx, CLI_ACTOR, 'project_created', { projectId: made.id, target: made.name })
      return made
    })
    const shown = withDsn(created, publicBase(config))
    print(values.json ? JSON.stringify(shown) : describeKeys(shown))
    return 0
  }
  if (command === 'project' && sub === 'update') {
    const { values } = args(rest.slice(1), { ...PROJECT_FIELDS, project: { type: 'string' }, json: { type: 'boolean' } })
    const id = required(values, 'project')
    const changes = projectFields(values)
    if (Object.keys(changes).length === 0) {
      throw new UsageError('project update needs a change: --name, --domain, --retention-days, --ip-storage, --mask-fields, --rate-limit, --daily-quota or --recording-budget')
    }
    const updated = await projects.changeProjects(db, async (trx) => {
      await audit(trx, CLI_ACTOR, 'settings_changed', { projectId: id, detail: { fields: Object.keys(changes) } })
      return projects.updateProject(trx, id, changes)
    })
    print(values.json ? JSON.stringify(updated) : `Updated: ${describeProject(updated, config)}`)
    return 0
  }
  if (command === 'project' && sub === 'list') {
    const { values } = args(rest.slice(1), { json: { type: 'boolean' } })
    const list = await Promise.all((await projects.listProjects(db))
      .map(async (p) => ({ ...withDsn(p, publicBase(config)), recordingBytes: (await recordingUsage(db, p.id)).bytes })))
    if (values.json) print(JSON.stringify(list))
    else if (list.length === 0) print('No projects yet: sessionwatch project create --name NAME --domain DOMAIN')
    else for (const p of list) print(describeProject(p, config))
    return 0
  }
  if (command === 'project' && sub === 'rotate-key') {
    const { values } = args(rest.slice(1), { project: { type: 'string' }, ingest: { type: 'boolean' }, upload: { type: 'boolean' }, json: { type: 'boolean' } })
    if (values.upload === true) {
      if (values.ingest === true) throw new UsageError('rotate-key takes --upload or --ingest, not both: --upload replaces the upload key alone')
      const made = await projects.changeProjects(db, async (trx) => {
        await audit(trx, CLI_ACTOR, 'upload_key_rotated', { projectId: required(values, 'project') })
        return projects.rotateUploadKey(trx, required(values, 'project'))
      })
      print(values.json ? JSON.stringify(made) : `Project ${made.id}: ${made.name} (${made.domain}); any previous upload key no longer works.\n${describeUploadKey(made.uploadKey)}`)
      return 0
    }
    const rotated = await projects.changeProjects(db, async (trx) => {
      await audit(trx, CLI_ACTOR, 'keys_rotated', { projectId: required(values, 'project'), detail: { keys: values.ingest === true ? ['api', 'ingest'] : ['api'] } })
      return projects.rotateKeys(trx, required(values, 'project'), { ingest: values.ingest === true })
    })
    const shown = withDsn(rotated, publicBase(config))
    const old = values.ingest === true ? 'The old API key, ingest key and Sentry DSN no longer work.' : 'The old API key no longer works.'
    print(values.json ? JSON.stringify(shown) : `${old}\n${describeKeys(shown)}`)
    return 0
  }
  if (command === 'project' && sub === 'delete') return projectDelete(db, stores, rest.slice(1), { print, note })
  if (command === 'admin' && sub === 'reset-password') {
    const password = await ensureOwner(db, { generate: true, reset: true })
    print(`New dashboard password: ${password ?? ''}\nThe first owner's sign-ins are ended. (ADMIN_PASSWORD, when set, takes precedence.)`)
    return 0
  }
  if (command === 'user') return userCommand(db, config, io, sub, rest.slice(1))
  if (command === 'audit') return auditCommand(db, io, sub, rest.slice(1))
  if (command === 'export') {
    const { values } = args(rest, { project: { type: 'string' }, date: { type: 'string' }, 'no-recording': { type: 'boolean' } })
    const project = await projects.getProject(db, required(values, 'project'))
    const count = await exportSessions(db, project, { date: values.date, recording: values['no-recording'] !== true, stores }, lineWriter(io.stdout), note)
    note(`exported ${count} sessions`)
    return 0
  }
  if (command === 'import') {
    const { values, positionals } = args(rest, { project: { type: 'string' } }, 1)
    const file = positionals[0]
    if (file === undefined) throw new UsageError('import needs a FILE (or - for standard input)')
    const project = await projects.getProject(db, required(values, 'project'))
    const input = file === '-' ? io.stdin : fs.createReadStream(file)
    const lines = readline.createInterface({ input, crlfDelay: Infinity })
    // Grouped as ingest groups them: through the project's source maps.
    const mapFrames = sourceMapMapper(createResolver(db, { cacheBytes: config.sourceMapCacheBytes }), project.id)
    const report = await importSessions(db, project, lines, { ...config.recording, stores }, { progress: note, mapFrames, ipStorage: config.ipStorage })
    for (const bad of report.bad) note(`line ${bad.line}: ${bad.reason}`)
    note(`imported ${report.imported} sessions (${report.events} new events, ${report.duplicates} already stored); `
      + `${report.bad.length} bad lines skipped`)
    if (report.droppedChunks > 0) {
      note(`${report.droppedChunks} recording chunks dropped and counted: over RECORDING_MAX_CHUNK_BYTES or RECORDING_MAX_SESSION_BYTES`)
    }
    if (report.expired > 0) note(`${report.expired} imported sessions are already past the project's retention; the next sweep removes them`)
    return report.bad.length > 0 ? 1 : 0
  }
  if (command === 'issue' && sub !== undefined && Object.hasOwn(STATUS_OF_ACTION, sub)) {
    const { values, positionals } = args(rest.slice(1), { project: { type: 'string' } }, 1)
    const id = positionals[0]
    if (id === undefined) throw new UsageError(`issue ${sub} needs an ISSUE_ID`)
    const project = await projects.getProject(db, required(values, 'project'))
    const { before, issue } = await changeStatus(db, project, id, STATUS_OF_ACTION[sub as keyof typeof STATUS_OF_ACTION])
    print(before === issue.status ? `${issue.id} was already ${issue.status}: ${issue.title}` : `${issue.id} ${before} → ${issue.status}: ${issue.title}`)
    return 0
  }
  if (command === 'sourcemaps' && sub === 'list') {
    const { values } = args(rest.slice(1), { project: { type: 'string' }, json: { type: 'boolean' } })
    const list = await listMaps(db, (await projects.getProject(db, required(values, 'project'))).id)
    if (values.json) print(JSON.stringify(list))
    else if (list.length === 0) print('No source maps yet: sessionwatch sourcemaps upload --project ID --url-prefix URL DIR')
    else for (const m of list) print(`${m.url}  ${m.file}  ${byteSize(m.bytes)}  ${m.createdAt}${m.release === null ? '' : `  release ${m.release}`}${m.debugId === null ? '' : `  debug ID ${m.debugId}`}`)
    return 0
  }
  if (command === 'sourcemaps' && sub === 'delete') {
    const { values } = args(rest.slice(1), { project: { type: 'string' }, url: { type: 'string' }, all: { type: 'boolean' } })
    if ((values.url === undefined) === (values.all !== true)) throw new UsageError('sourcemaps delete takes either --url URL or --all')
    const project = await projects.getProject(db, required(values, 'project'))
    const deleted = await deleteMaps(db, null, project.id, values.url ?? null)
    if (deleted === 0 && values.url !== undefined) throw new AppError(404, 'not_found', `No source map is stored for ${values.url}`)
    print(`deleted ${deleted} source maps`)
    return 0
  }
  if (command === 'retention' && sub === 'run') {
    args(rest.slice(1), {})
    const report = await sweep(db, Date.now(), (id, n) => { note(`${id}: deleted ${n} expired sessions…`) })
    await purgeTrash(db, stores)
    const lines = await sweepAudit(db, config.auditRetentionDays)
    print(`retention: deleted ${report.deleted} expired sessions across ${report.projects} projects, and ${lines} audit lines older than ${config.auditRetentionDays} days`)
    return 0
  }
  if (command === 'erase') {
    const { values } = args(rest, { project: { type: 'string' }, user: { type: 'string' }, session: { type: 'string' }, ip: { type: 'string' }, json: { type: 'boolean' } })
    const project = required(values, 'project')
    const given = (['user', 'session', 'ip'] as const).filter((name) => values[name] !== undefined)
    if (given.length !== 1) throw new UsageError(`erase takes exactly one of --user, --session and --ip (got ${given.length === 0 ? 'none' : given.map((g) => `--${g}`).join(' and ')})`)
    const body = { userId: values.user, sessionId: values.session, ip: values.ip }
    const result = await eraseVisitor(db, stores, project, body, config.ipStorage, (n) => {
      if (n >= SWEEP_BATCH) note(`erased ${n} visits…`)
    })
    await audit(db, CLI_ACTOR, 'erase', { projectId: project, detail: { by: eraseKind(body), visits: result.erased } })
    if (result.note !== null) note(result.note)
    print(values.json ? JSON.stringify(result) : `erased ${result.erased} visits from project ${project}, with their events and recordings`)
    return 0
  }
  if (command === 'webhook') return webhookCommand(db, config, print, sub, rest.slice(1))
  if (command === 'storage') return storageCommand(db, config, stores, sub, rest.slice(1), { print, note })
  throw new UsageError(`unknown command "${[command, sub].filter(Boolean).join(' ')}"`)
}

async function webhookCommand(db: Kysely<Database>, config: Config, print: Io['print'], sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'add') {
    const { values } = args(rest, { project: { type: 'string' }, url: { type: 'string' }, json: { type: 'boolean' } })
    const added = await webhooks.addWebhook(db, required(values, 'project'), required(values, 'url'), config.webhooks)
    // The secret is shown here only: the service keeps it to sign deliveries and never prints it again.
    print(values.json ? JSON.stringify(added) : `Webhook ${added.id} added: new issues and regressions are posted to ${added.url}\n`
      + `Signing secret (shown once; the webhook-signature header is signed with it): ${added.secret}`)
    return 0
  }
  if (sub === 'list') {
    const { values } = args(rest, { project: { type: 'string' }, json: { type: 'boolean' } })
    const list = await webhooks.listWebhooks(db, required(values, 'project'))
    if (values.json) print(JSON.stringify(list))
    else if (list.length === 0) print('No webhooks yet: sessionwatch webhook add --project ID --url URL')
    else for (const w of list) print(`${w.id}  ${w.url}  added ${w.createdAt}`)
    return 0
  }
  if (sub === 'remove') {
    const { values, positionals } = args(rest, { project: { type: 'string' } }, 1)
    const id = positionals[0]
    if (id === undefined) throw new UsageError('webhook remove needs a WEBHOOK_ID (webhook list shows them)')
    await webhooks.removeWebhook(db, required(values, 'project'), id)
    print(`Webhook ${id} removed`)
    return 0
  }
  throw new UsageError(`unknown command "webhook${sub === undefined ? '' : ` ${sub}`}"`)
}

/** Honors back-pressure so exporting millions of sessions to a slow pipe does not buffer them all. */
function lineWriter(stdout: NodeJS.WritableStream): (line: string) => Promise<void> {
  return (line) => new Promise((resolve, reject) => {
    const ok = stdout.write(`${line}\n`, (error) => { if (error) reject(error) })
    if (ok) resolve()
    else stdout.once('drain', resolve)
  })
}
