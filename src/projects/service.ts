import {
  DEFAULT_RETENTION_DAYS, IP_STORAGE_MODES, MAX_DAILY_EVENT_QUOTA, MAX_INGEST_RATE_LIMIT, MAX_MASK_FIELD_LENGTH, MAX_MASK_FIELDS, MAX_PROJECT_NAME_LENGTH, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS,
} from '../../common/limits.ts'
import type { Kysely, Transaction } from 'kysely'
import type { Database, Db } from '../database.ts'
import { metaValue } from '../db/meta.ts'
import { AppError } from '../errors.ts'
import { cleanText } from '../events/text.ts'
import { newId } from '../util/ids.ts'
import { DAY_MS } from '../util/time.ts'
import { isIpStorage, type IpStorage } from '../privacy/ip.ts'
import { displayPrefix, dsnKeyOf, hashApiKey, newApiKey, newIngestKey, newUploadKey, sameDigest } from './keys.ts'
import * as store from './store.ts'

/** The `project` object of API responses. */
export interface Project {
  id: string
  name: string
  domain: string
}

/** A project as the server uses it internally. */
export interface ProjectContext extends Project {
  retentionDays: number
  /** How much of a visitor's IP address it stores; null follows the server's IP_STORAGE (ipStorageOf). */
  ipStorage: IpStorage | null
  /** Field names masked in request and response bodies besides the built-in ones; usually none. */
  maskFields: readonly string[]
  /** Ingest requests per second per process; null follows the server's INGEST_RATE_LIMIT, 0 is no limit (src/limits). */
  ingestRateLimit: number | null
  /** Events accepted per UTC day; null is no quota (src/limits/quota.ts). */
  dailyEventQuota: number | null
  /** Compressed recording bytes kept at most; null is no budget (src/recording/upkeep.ts). */
  recordingBudget: number | null
  /** Whether public links to one visit's replay work (src/replay-links); off by default. */
  publicReplays: boolean
}

/** The IP storage a project applies: its own, else the server's (config.ipStorage). */
export const ipStorageOf = (project: Pick<ProjectContext, 'ipStorage'>, serverDefault: IpStorage): IpStorage =>
  project.ipStorage ?? serverDefault

/** The API's view of a project: no keys, no settings. */
export const publicProject = (p: Project): Project => ({ id: p.id, name: p.name, domain: p.domain })

/**
 * The oldest last activity a session may have and still be the project's: older ones are past
 * retention, gone for every reader at once, and deleted by the next sweep. The one place the
 * retention rule is computed.
 */
export const retentionCutoff = (project: { retentionDays: number }, now: number): number => now - project.retentionDays * DAY_MS

/** What creating a project or rotating its keys hands back: the only time the API key is visible. */
export interface ProjectWithKeys extends Project {
  apiKey: string
  /** The secret key of source map uploads: shown only at creation and when it is replaced (rotateUploadKey). */
  uploadKey: string
  ingestKey: string
  /** The project id and public key of its Sentry DSN (dsnOf in format.ts writes the DSN). */
  sentryProjectId: number
  dsnKey: string
}

export interface ProjectSummary extends Project {
  retentionDays: number
  apiKeyPrefix: string
  /** The start of the upload key; null for a project made before upload keys until one is created. */
  uploadKeyPrefix: string | null
  ingestKey: string
  sentryProjectId: number
  dsnKey: string
  createdAt: string
  /** null: the server's IP_STORAGE. */
  ipStorage: IpStorage | null
  maskFields: string[]
  /** null: the server's INGEST_RATE_LIMIT; 0: no limit. */
  ingestRateLimit: number | null
  /** null: no quota. */
  dailyEventQuota: number | null
  /** Compressed recording bytes kept at most, the oldest recordings deleted beyond it (src/recording/upkeep.ts); null: none. */
  recordingBudget: number | null
  /** Whether public links to one visit's replay work (src/replay-links). */
  publicReplays: boolean
}

const maskFieldsOf = (row: store.ProjectRow): string[] => (row.mask_fields === null ? [] : JSON.parse(row.mask_fields) as string[])

const toContext = (row: store.ProjectRow): ProjectContext => ({
  id: row.id, name: row.name, domain: row.domain, retentionDays: row.retention_days, ipStorage: row.ip_storage, maskFields: maskFieldsOf(row),
  ingestRateLimit: row.ingest_rate_limit, dailyEventQuota: row.daily_event_quota, recordingBudget: row.recording_budget,
  publicReplays: row.public_replays === 1,
})

export interface NewProject {
  name: string
  domain: string
  retentionDays?: number
  /** null (or left out at creation): the server's IP_STORAGE. */
  ipStorage?: IpStorage | null
  /** Replaces the list; an empty one masks only the built-in names. */
  maskFields?: readonly string[]
  /** Requests per second; null (or left out at creation): the server's INGEST_RATE_LIMIT; 0: no limit. */
  ingestRateLimit?: number | null
  /** Events per UTC day; null (or left out at creation): no quota. */
  dailyEventQuota?: number | null
  /** Compressed recording bytes; null (or left out at creation): no budget. */
  recordingBudget?: number | null
  /** Public replay links allowed; off at creation. */
  publicReplays?: boolean
}

/** Checks a new project's fields; returns every problem found. */
export function validateNewProject(input: NewProject): string[] {
  const problems: string[] = []
  if (input.name.trim() === '' || input.name.length > MAX_PROJECT_NAME_LENGTH) {
    problems.push(`name must be 1 to ${MAX_PROJECT_NAME_LENGTH} characters`)
  }
  if (!/^[a-z0-9.-]{1,253}(?::\d{1,5})?$/i.test(input.domain)) {
    problems.push('domain must be a host name such as example.com (optionally with :port)')
  }
  const days = input.retentionDays
  if (days !== undefined && (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS)) {
    problems.push(`retention days must be a whole number from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`)
  }
  // Typed, but the CLI hands over what a person wrote.
  if (input.ipStorage != null && !isIpStorage(input.ipStorage)) {
    problems.push(`ipStorage must be one of ${IP_STORAGE_MODES.join(', ')}, or null for the server's IP_STORAGE (got "${String(input.ipStorage)}")`)
  }
  if (input.maskFields !== undefined) problems.push(...maskFieldProblems(input.maskFields))
  const rate = input.ingestRateLimit
  if (rate != null && (!Number.isInteger(rate) || rate < 0 || rate > MAX_INGEST_RATE_LIMIT)) {
    problems.push(`ingestRateLimit must be a whole number of requests per second from 0 (no limit) to ${MAX_INGEST_RATE_LIMIT}, or null for the server's INGEST_RATE_LIMIT (got ${String(rate)})`)
  }
  const quota = input.dailyEventQuota
  if (quota != null && (!Number.isInteger(quota) || quota < 1 || quota > MAX_DAILY_EVENT_QUOTA)) {
    problems.push(`dailyEventQuota must be a whole number of events from 1 to ${MAX_DAILY_EVENT_QUOTA}, or null for no quota (got ${String(quota)})`)
  }
  const budget = input.recordingBudget
  if (budget != null && (!Number.isSafeInteger(budget) || budget < 1)) {
    problems.push(`recordingBudget must be a whole number of bytes from 1, or null for no budget (got ${String(budget)})`)
  }
  return problems
}

/**
 * What is wrong with a list of masked field names. Names are compared without regard to case, as the masking
 * does (common/scrub.ts isSensitiveKey); a comma is refused because the CLI and the dashboard take the list
 * comma-separated, so such a name could never be written back.
 */
function maskFieldProblems(fields: readonly string[]): string[] {
  if (fields.length > MAX_MASK_FIELDS) return [`maskFields may name at most ${MAX_MASK_FIELDS} fields (got ${fields.length})`]
  const problems: string[] = []
  fields.forEach((raw, i) => {
    const name = raw.trim()
    if (name === '' || name.length > MAX_MASK_FIELD_LENGTH) {
      problems.push(`maskFields[${i}] must be a field name of 1 to ${MAX_MASK_FIELD_LENGTH} characters (got ${name === '' ? 'an empty one' : `${name.length}`})`)
    } else if (/[,\p{Cc}]/u.test(name)) {
      problems.push(`maskFields[${i}] ${JSON.stringify(name)} must not contain commas or control characters`)
    }
  })
  return problems
}

/** The list as stored: trimmed, each name once (first spelling kept); null when empty. */
function storedMaskFields(fields: readonly string[]): string | null {
  const seen = new Set<string>()
  const kept = fields.map((f) => f.trim()).filter((f) => !seen.has(f.toLowerCase()) && seen.add(f.toLowerCase()))
  return kept.length === 0 ? null : JSON.stringify(kept)
}

/**
 * Changes a project's name, domain, retention, privacy, ingest limits or recording budget; returns it as listed. Shorter retention hides
 * older sessions at once; IP storage and masked fields apply to what arrives from now on; limits at once.
 */
export async function updateProject(db: Db, id: string, input: Partial<NewProject>): Promise<ProjectSummary> {
  const current = await store.findProjectById(db, id)
  if (!current) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  const merged = {
    name: input.name ?? current.name, domain: input.domain ?? current.domain, retentionDays: input.retentionDays ?? current.retention_days,
    ipStorage: input.ipStorage, maskFields: input.maskFields, ingestRateLimit: input.ingestRateLimit, dailyEventQuota: input.dailyEventQuota,
    recordingBudget: input.recordingBudget,
  }
  const problems = validateNewProject(merged)
  if (problems.length > 0) throw new AppError(400, 'invalid_parameter', problems.join('; '))
  const row = await store.updateProject(db, id, {
    ...(input.name !== undefined && { name: cleanText(input.name.trim()) }),
    ...(input.domain !== undefined && { domain: input.domain.toLowerCase() }),
    ...(input.retentionDays !== undefined && { retention_days: input.retentionDays }),
    ...(input.ipStorage !== undefined && { ip_storage: input.ipStorage }),
    ...(input.maskFields !== undefined && { mask_fields: storedMaskFields(input.maskFields) }),
    ...(input.ingestRateLimit !== undefined && { ingest_rate_limit: input.ingestRateLimit }),
    ...(input.dailyEventQuota !== undefined && { daily_event_quota: input.dailyEventQuota }),
    ...(input.recordingBudget !== undefined && { recording_budget: input.recordingBudget }),
    ...(input.publicReplays !== undefined && { public_replays: input.publicReplays ? 1 : 0 }),
  })
  if (!row) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  return toSummary(row)
}

export async function createProject(db: Db, input: NewProject, now = Date.now()): Promise<ProjectWithKeys> {
  const problems = validateNewProject(input)
  if (problems.length > 0) throw new AppError(400, 'invalid_parameter', problems.join('; '))
  const apiKey = newApiKey()
  const uploadKey = newUploadKey()
  const ingestKey = newIngestKey()
  const row: Omit<store.ProjectRow, 'number'> = {
    id: newId('p_', 9),
    name: cleanText(input.name.trim()),
    domain: input.domain.toLowerCase(),
    retention_days: input.retentionDays ?? DEFAULT_RETENTION_DAYS,
    api_key_hash: hashApiKey(apiKey),
    api_key_prefix: displayPrefix(apiKey),
    upload_key_hash: hashApiKey(uploadKey),
    upload_key_prefix: displayPrefix(uploadKey),
    ingest_key: ingestKey,
    dsn_key: dsnKeyOf(ingestKey),
    created_at: now,
    ip_storage: input.ipStorage ?? null,
    mask_fields: storedMaskFields(input.maskFields ?? []),
    ingest_rate_limit: input.ingestRateLimit ?? null,
    daily_event_quota: input.dailyEventQuota ?? null,
    recording_budget: input.recordingBudget ?? null,
    public_replays: input.publicReplays === true ? 1 : 0,
  }
  const stored = await store.insertProject(db, row)
  return { id: row.id, name: row.name, domain: row.domain, apiKey, uploadKey, ingestKey, sentryProjectId: stored.number, dsnKey: stored.dsn_key }
}

/** The project a secret API key belongs to, or null. */
export async function projectForApiKey(db: Db, apiKey: string): Promise<ProjectContext | null> {
  const hash = hashApiKey(apiKey)
  const row = await store.findProjectByApiKeyHash(db, hash)
  // The lookup is by digest, so its timing says nothing about the key; the final check is constant-time.
  return row && sameDigest(row.api_key_hash, hash) ? toContext(row) : null
}

/** The project a secret upload key belongs to, or null; found and compared as the API key is. */
export async function projectForUploadKey(db: Db, uploadKey: string): Promise<ProjectContext | null> {
  const hash = hashApiKey(uploadKey)
  const row = await store.findProjectByUploadKeyHash(db, hash)
  return row?.upload_key_hash != null && sameDigest(row.upload_key_hash, hash) ? toContext(row) : null
}

/** The project a public ingest key belongs to, or null. */
export async function projectForIngestKey(db: Db, ingestKey: string): Promise<ProjectContext | null> {
  const row = await store.findProjectByIngestKey(db, ingestKey)
  return row ? toContext(row) : null
}

/**
 * The project a Sentry DSN names (its numeric id and public key), or null. Like the ingest key, the DSN key is
 * public and only writes, so a plain lookup is enough.
 */
export async function projectForDsn(db: Db, sentryProjectId: number, dsnKey: string): Promise<ProjectContext | null> {
  if (!Number.isSafeInteger(sentryProjectId) || !/^[0-9a-f]{32}$/.test(dsnKey)) return null
  const row = await store.findProjectByDsn(db, sentryProjectId, dsnKey)
  return row ? toContext(row) : null
}

export async function getProject(db: Db, id: string): Promise<ProjectContext> {
  const row = await store.findProjectById(db, id)
  if (!row) throw new AppError(404, 'not_found', `No project with id "${id}"; \`sessionwatch project list\` shows them`)
  return toContext(row)
}

export async function listProjects(db: Db): Promise<ProjectSummary[]> {
  const rows = await store.listProjects(db)
  return rows.map(toSummary)
}

const toSummary = (r: store.ProjectRow): ProjectSummary => ({
  id: r.id, name: r.name, domain: r.domain, retentionDays: r.retention_days,
  apiKeyPrefix: r.api_key_prefix, uploadKeyPrefix: r.upload_key_prefix, ingestKey: r.ingest_key, sentryProjectId: r.number, dsnKey: r.dsn_key, createdAt: new Date(r.created_at).toISOString(),
  ipStorage: r.ip_storage, maskFields: maskFieldsOf(r), ingestRateLimit: r.ingest_rate_limit, dailyEventQuota: r.daily_event_quota,
  recordingBudget: r.recording_budget, publicReplays: r.public_replays === 1,
})

export const countProjects = (db: Db): Promise<number> => store.countProjects(db)

/** The meta row the first start claims before it creates a project for a newcomer (first-run.ts). */
export const FIRST_PROJECT_CLAIM = 'first_project'

/**
 * Whether the project the first start created is still the only one: projects are numbered in creation order and
 * never deleted, so it is project 1, alone, in a database whose first start claimed FIRST_PROJECT_CLAIM.
 */
export async function firstRunProjectAlone(db: Db): Promise<boolean> {
  const projects = await store.listProjects(db)
  if (projects.length !== 1 || projects[0]?.number !== 1) return false
  return (await metaValue(db, FIRST_PROJECT_CLAIM)) !== undefined
}

/**
 * Replaces the API key (and the ingest key, with the DSN key derived from it, when asked). The old API key stops
 * working at once.
 * Returns the new keys; the unchanged ingest key is returned too so callers always get a full set.
 */
export async function rotateKeys(db: Db, id: string, opts: { ingest: boolean }): Promise<Omit<ProjectWithKeys, 'uploadKey'>> {
  const project = await store.findProjectById(db, id)
  if (!project) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  const apiKey = newApiKey()
  const ingestKey = opts.ingest ? newIngestKey() : project.ingest_key
  const dsnKey = dsnKeyOf(ingestKey)
  await store.updateProjectKeys(db, id, {
    api_key_hash: hashApiKey(apiKey), api_key_prefix: displayPrefix(apiKey), ingest_key: ingestKey, dsn_key: dsnKey,
  })
  return { id, name: project.name, domain: project.domain, apiKey, ingestKey, sentryProjectId: project.number, dsnKey }
}

/** A project with its new upload key: what replacing (or first creating) it hands back, the only time it is visible. */
export interface ProjectWithUploadKey extends Project {
  uploadKey: string
}

/**
 * Creates the project's upload key, or replaces it (the old one stops working at once). The API and ingest keys
 * stay: a project made before upload keys gets one without disturbing the scripts that read with its API key.
 */
export async function rotateUploadKey(db: Db, id: string): Promise<ProjectWithUploadKey> {
  const project = await store.findProjectById(db, id)
  if (!project) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  const uploadKey = newUploadKey()
  await store.updateProjectKeys(db, id, { upload_key_hash: hashApiKey(uploadKey), upload_key_prefix: displayPrefix(uploadKey) })
  return { id, name: project.name, domain: project.domain, uploadKey }
}

/**
 * Runs changes to projects, with what the caller writes beside them (an audit line), in one transaction, then drops
 * this process's cached projects: a rotated key stops working once the change committed.
 */
export async function changeProjects<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const result = await db.transaction().execute(work)
  store.forget(db)
  return result
}
