import type { Db } from '../db/database.ts'
import { AppError } from '../errors.ts'
import { cleanText } from '../events/text.ts'
import { newId } from '../shared/ids.ts'
import { DAY_MS } from '../shared/time.ts'
import { displayPrefix, hashApiKey, newApiKey, newIngestKey, sameDigest } from './keys.ts'
import * as store from './store.ts'

export const DEFAULT_RETENTION_DAYS = 30
export const MAX_RETENTION_DAYS = 3650

/** The `project` object of API responses. */
export interface Project {
  id: string
  name: string
  domain: string
}

/** A project as the server uses it internally. */
export interface ProjectContext extends Project {
  retentionDays: number
}

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
  ingestKey: string
}

export interface ProjectSummary extends Project {
  retentionDays: number
  apiKeyPrefix: string
  ingestKey: string
  createdAt: string
}

const toContext = (row: store.ProjectRow): ProjectContext =>
  ({ id: row.id, name: row.name, domain: row.domain, retentionDays: row.retention_days })

export interface NewProject {
  name: string
  domain: string
  retentionDays?: number
}

/** Checks a new project's fields; returns every problem found. */
export function validateNewProject(input: NewProject): string[] {
  const problems: string[] = []
  if (input.name.trim() === '' || input.name.length > 200) problems.push('name must be 1 to 200 characters')
  if (!/^[a-z0-9.-]{1,253}(?::\d{1,5})?$/i.test(input.domain)) {
    problems.push('domain must be a host name such as example.com (optionally with :port)')
  }
  const days = input.retentionDays
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
    problems.push(`retention days must be a whole number from 1 to ${MAX_RETENTION_DAYS}`)
  }
  return problems
}

/** Changes a project's name, domain or retention; returns it as listed. Shorter retention hides older sessions at once. */
export async function updateProject(db: Db, id: string, input: Partial<NewProject>): Promise<ProjectSummary> {
  const current = await store.findProjectById(db, id)
  if (!current) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  const merged = { name: input.name ?? current.name, domain: input.domain ?? current.domain, retentionDays: input.retentionDays ?? current.retention_days }
  const problems = validateNewProject(merged)
  if (problems.length > 0) throw new AppError(400, 'invalid_parameter', problems.join('; '))
  const row = await store.updateProject(db, id, {
    ...(input.name !== undefined && { name: cleanText(input.name.trim()) }),
    ...(input.domain !== undefined && { domain: input.domain.toLowerCase() }),
    ...(input.retentionDays !== undefined && { retention_days: input.retentionDays }),
  })
  if (!row) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  return toSummary(row)
}

export async function createProject(db: Db, input: NewProject, now = Date.now()): Promise<ProjectWithKeys> {
  const problems = validateNewProject(input)
  if (problems.length > 0) throw new AppError(400, 'invalid_parameter', problems.join('; '))
  const apiKey = newApiKey()
  const ingestKey = newIngestKey()
  const row: store.ProjectRow = {
    id: newId('p_', 9),
    name: cleanText(input.name.trim()),
    domain: input.domain.toLowerCase(),
    retention_days: input.retentionDays ?? DEFAULT_RETENTION_DAYS,
    api_key_hash: hashApiKey(apiKey),
    api_key_prefix: displayPrefix(apiKey),
    ingest_key: ingestKey,
    created_at: now,
  }
  await store.insertProject(db, row)
  return { id: row.id, name: row.name, domain: row.domain, apiKey, ingestKey }
}

/** The project a secret API key belongs to, or null. */
export async function projectForApiKey(db: Db, apiKey: string): Promise<ProjectContext | null> {
  const hash = hashApiKey(apiKey)
  const row = await store.findProjectByApiKeyHash(db, hash)
  // The lookup is by digest, so its timing says nothing about the key; the final check is constant-time.
  return row && sameDigest(row.api_key_hash, hash) ? toContext(row) : null
}

/** The project a public ingest key belongs to, or null. */
export async function projectForIngestKey(db: Db, ingestKey: string): Promise<ProjectContext | null> {
  const row = await store.findProjectByIngestKey(db, ingestKey)
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
  apiKeyPrefix: r.api_key_prefix, ingestKey: r.ingest_key, createdAt: new Date(r.created_at).toISOString(),
})

export const countProjects = (db: Db): Promise<number> => store.countProjects(db)

/**
 * Replaces the API key (and the ingest key when asked). The old API key stops working at once.
 * Returns the new keys; the unchanged ingest key is returned too so callers always get a full set.
 */
export async function rotateKeys(db: Db, id: string, opts: { ingest: boolean }): Promise<ProjectWithKeys> {
  const project = await store.findProjectById(db, id)
  if (!project) throw new AppError(404, 'not_found', `No project with id "${id}"`)
  const apiKey = newApiKey()
  const ingestKey = opts.ingest ? newIngestKey() : project.ingest_key
  await store.updateProjectKeys(db, id, {
    api_key_hash: hashApiKey(apiKey), api_key_prefix: displayPrefix(apiKey), ingest_key: ingestKey,
  })
  return { id, name: project.name, domain: project.domain, apiKey, ingestKey }
}
