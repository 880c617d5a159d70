import type { Kysely } from 'kysely'
import type { Compile } from 'typebox/compile'
import type { Database } from '../database.ts'
import { AppError } from '../errors.ts'
import { type EventRecord, missingFields } from '../contract/index.ts'
import { type ChunkRecord, chunkSources, cleanFacts, createWriter, type EventRow, listEvents, sessionsAfter, type SessionSeed } from '../visits/index.ts'
import { normalizeEvent } from '../events/normalize.ts'
import { groupEvents, type FrameMapper } from '../issues/index.ts'
import { ipStorageOf, retentionCutoff, type ProjectContext } from '../projects/service.ts'
import { storedIp, type IpStorage } from '../privacy/ip.ts'
import { DEFAULT_IP_STORAGE } from '../settings.ts'
import { decodeChunks, type RecordingLimits, type Recordings } from '../recording/service.ts'
import { discardChunks, readChunk, type RecordingStores, storeChunks } from '../recording/store/index.ts'
import { toEventFields, toSessionView } from '../sessions/views.ts'
import { DAY_MS, parseDate, parseInstant, toIso } from '../util/time.ts'
import { TransferLine } from './schema.ts'

type LineCheck = ReturnType<typeof Compile<typeof TransferLine>>
let lineCheck: Promise<LineCheck> | null = null
/**
 * The line's validator, compiled on the first import: the service (which imports nothing) never loads TypeBox's
 * compiler, about 2 MB of heap it would keep for nothing.
 */
const checkOfLine = (): Promise<LineCheck> => (lineCheck ??= import('typebox/compile').then(({ Compile: compile }) => compile(TransferLine))
  .catch((error: unknown) => {
    lineCheck = null // the next import tries again
    throw error
  }))
const EXPORT_PAGE = 200
/** Lines stored concurrently during an import: enough to fill group commits, few enough to bound memory. */
const IMPORT_IN_FLIGHT = 256

export interface Progress {
  (message: string): void
}

/**
 * Writes the project's live sessions as NDJSON, one getSession-shaped object per line, oldest
 * start first. Walks the sessions by keyset so memory stays flat whatever the project's size.
 */
export async function exportSessions(
  db: Kysely<Database>, project: ProjectContext, opts: { date?: string; now?: number; recording?: boolean; stores: RecordingStores },
  write: (line: string) => Promise<void>, progress: Progress = () => undefined,
): Promise<number> {
  let from: number | undefined
  if (opts.date !== undefined) {
    const day = parseDate(opts.date)
    if (day === null) throw new AppError(400, 'invalid_parameter', `--date must be a calendar date YYYY-MM-DD (got "${opts.date}")`, 'date')
    from = day
  }
  const range = { from, to: from === undefined ? undefined : from + DAY_MS, cutoff: retentionCutoff(project, opts.now ?? Date.now()) }
  let after: { startedAt: number; id: string } | null = null
  let count = 0
  for (;;) {
    const rows = await sessionsAfter(db, project.id, range, after, EXPORT_PAGE)
    for (const row of rows) {
      const events = await listEvents(db, project.id, row.id)
      const { events: _counters, ...session } = toSessionView(row)
      const chunks = row.recording_chunks
      const recordingChunks = chunks > 0 && opts.recording !== false
        ? await exportedChunks(db, opts.stores, project.id, row.id)
        : undefined
      await write(JSON.stringify({ ...session, recording: { available: chunks > 0, chunks }, events: events.map(transferEvent), recordingChunks }))
      count++
      if (count % 10_000 === 0) progress(`exported ${count} sessions…`)
    }
    const last = rows.at(-1)
    if (!last || rows.length < EXPORT_PAGE) break
    after = { startedAt: last.started_at, id: last.id }
  }
  return count
}

export interface ImportReport {
  imported: number
  events: number
  duplicates: number
  bad: { line: number; reason: string }[]
  expired: number
  /** Recording chunks over the configured chunk or session limit: dropped and counted on their session, as ingest does. */
  droppedChunks: number
}

/**
 * Imports NDJSON lines. Each line is checked in full, then stored in its own transaction, so a
 * bad line is reported by number and nothing of it is stored; good lines around it are kept.
 * Counters are recomputed from the events; re-importing the same lines stores nothing twice.
 * `recordings` are the configured recording limits and stores (app.recordings), required so that an import
 * can never keep more than ingest would, and writes its chunks where ingest would. The project's privacy settings apply as at ingest: its maskFields
 * to the bodies, its IP storage (`ipStorage`: the server's IP_STORAGE, for a project without its own) to the
 * addresses, so an import never keeps more of a visitor than ingest would either.
 */
export async function importSessions(
  db: Kysely<Database>, project: ProjectContext, lines: AsyncIterable<string> | Iterable<string>, recordings: Recordings,
  { progress = () => undefined, now = Date.now(), mapFrames, ipStorage = DEFAULT_IP_STORAGE }:
  { progress?: Progress; now?: number; mapFrames?: FrameMapper; ipStorage?: IpStorage } = {},
): Promise<ImportReport> {
  const storage = ipStorageOf(project, ipStorage)
  const report: ImportReport = { imported: 0, events: 0, duplicates: 0, bad: [], expired: 0, droppedChunks: 0 }
  const cutoff = retentionCutoff(project, now)
  // Lines share group commits like ingest batches do; a bounded number is in flight at once.
  const writer = createWriter(db)
  const inFlight = new Set<Promise<void>>()
  const store = async (lineNo: number, { seed, events, recording }: ReturnType<typeof parseLine>) => {
    try {
      const chunks = await storeChunks(recordings.stores, project.id, await importChunks(recording, recordings, now))
      const result = await writer.submit({
        projectId: project.id, seed: { ...seed, ip: storedIp(seed.ip, storage) }, events, groups: await groupEvents(events, mapFrames), cutoff, now,
        ...(chunks.length > 0 && { recording: { chunks, maxSessionBytes: recordings.maxSessionBytes } }),
      }).catch(async (error: unknown) => {
        await discardChunks(recordings.stores, chunks)
        throw error
      })
      report.imported++
      report.events += result.accepted
      report.duplicates += result.duplicates
      report.droppedChunks += result.recording?.dropped ?? 0
      if ((seed.lastSeenAt ?? now) < cutoff) report.expired++
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      report.bad.push({ line: lineNo, reason: error.message })
    }
  }
  let lineNo = 0
  let check: LineCheck | undefined
  try {
    // Nothing is awaited before the loop starts: a readline interface emits the lines it reads meanwhile to no one.
    for await (const text of lines) {
      lineNo++
      if (text.trim() === '') continue
      check ??= await checkOfLine()
      let parsed: ReturnType<typeof parseLine>
      try {
        parsed = parseLine(text, check, project.maskFields)
      } catch (error) {
        if (!(error instanceof AppError)) throw error
        report.bad.push({ line: lineNo, reason: error.message })
        continue
      }
      const task = store(lineNo, parsed).finally(() => { inFlight.delete(task) })
      inFlight.add(task)
      if (inFlight.size >= IMPORT_IN_FLIGHT) await Promise.race(inFlight)
      if (lineNo % 10_000 === 0) progress(`read ${lineNo} lines, imported ${report.imported} sessions…`)
    }
    await Promise.all(inFlight)
  } finally {
    await writer.close()
  }
  report.bad.sort((a, b) => a.line - b.line)
  return report
}

/** An event as exported: its API fields, and the frames a server SDK sent (import stores them again). */
const transferEvent = (row: EventRow) => ({ ...toEventFields(row), ...(row.frames !== null && { frames: JSON.parse(row.frames) as unknown }) })

/**
 * Validates one line completely (its shape with `checkLine`, the compiled TransferLine) and turns it into what the store
 * takes (bodies masked with `maskFields` too). Throws AppError naming the fault.
 */
export function parseLine(text: string, checkLine: LineCheck, maskFields: readonly string[] = []): { seed: SessionSeed & { id: string }; events: EventRecord[]; recording: TransferChunk[] } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new AppError(400, 'invalid_body', 'not valid JSON')
  }
  if (!checkLine.Check(value)) {
    const [first] = checkLine.Errors(value)
    const where = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'line'
    throw new AppError(400, 'invalid_body', `${where}: ${first?.message ?? 'does not match the session shape'}`)
  }
  const line = value
  const instant = (where: string, raw: string): number => {
    const ms = parseInstant(raw)
    if (ms === null) throw new AppError(400, 'invalid_body', `${where}: must be an ISO 8601 date-time with a zone (got "${raw}")`)
    return ms
  }
  const startedAt = instant('startedAt', line.startedAt)
  const lastSeenAt = instant('lastSeenAt', line.lastSeenAt)
  if (startedAt > lastSeenAt) throw new AppError(400, 'invalid_body', 'startedAt: must not be later than lastSeenAt')
  const seen = new Set<string>()
  const events = line.events.map((e, i) => {
    const missing = missingFields(e.type, e)
    if (missing.length > 0) throw new AppError(400, 'invalid_body', `events.${i}: ${e.type} needs ${missing.join(', ')}`)
    if (seen.has(e.id)) throw new AppError(400, 'invalid_body', `events.${i}.id: "${e.id}" appears twice`)
    seen.add(e.id)
    return normalizeEvent({ ...e, createdAt: instant(`events.${i}.createdAt`, e.createdAt) }, maskFields)
  })
  return {
    seed: {
      id: line.id, sessionKey: line.sessionKey, startedAt, lastSeenAt, ...cleanFacts(line),
    },
    events,
    recording: (line.recordingChunks ?? []).map((c, i) => ({ ...c, at: instant(`recordingChunks.${i}.startedAt`, c.startedAt) })),
  }
}

type TransferChunk = NonNullable<TransferLine['recordingChunks']>[number] & { at: number }

/**
 * A visit's chunks as an export line carries them, read from whichever store holds each. A chunk its store has lost is
 * left out (`storage check` lists such chunks): the rest of the recording still replays.
 */
async function exportedChunks(db: Kysely<Database>, stores: RecordingStores, projectId: string, sessionId: string) {
  const out: { id: string; data: string; startedAt: string }[] = []
  for (const source of await chunkSources(db, projectId, sessionId)) {
    const data = await readChunk(stores, source)
    if (data !== null) out.push({ id: source.id, data: data.toString('base64'), startedAt: toIso(source.started_at) })
  }
  return out
}

/** Checks imported chunks like uploads, and puts each back at its exported time (its clock correction kept). */
async function importChunks(chunks: TransferChunk[], limits: RecordingLimits, now: number): Promise<ChunkRecord[]> {
  const decoded = await decodeChunks(chunks, limits, (t) => t, now).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError(400, 'invalid_body', error.message.replace(/^recording\[(\d+)\]/, 'recordingChunks.$1')) : error
  })
  return decoded.map((c, i) => {
    const shift = c.data === null ? 0 : (chunks[i]?.at ?? c.started_at) - c.started_at
    return { ...c, started_at: c.started_at + shift, ended_at: c.ended_at + shift }
  })
}
