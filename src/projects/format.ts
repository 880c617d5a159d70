import type { IpStorage } from '../privacy/ip.ts'
import type { ProjectSummary, ProjectWithKeys } from './service.ts'

/**
 * A project's Sentry DSN: `<scheme>://<dsn key>@<host>[:port][/path]/<number>`, on `base`, the server's public
 * URL (PUBLIC_URL, else the address it was reached at). A path in `base` stays in front: the SDK posts to
 * `<base>/api/<number>/envelope/`.
 */
export function dsnOf(base: string, p: Pick<ProjectWithKeys, 'sentryProjectId' | 'dsnKey'>): string {
  const url = new URL(base)
  const path = url.pathname.replace(/\/+$/, '')
  return `${url.protocol}//${p.dsnKey}@${url.host}${path}/${p.sentryProjectId}`
}

/** A project with its Sentry DSN, as the CLI's --json and the dashboard give it. */
export type WithDsn<T> = T & { dsn: string }
export const withDsn = <T extends Pick<ProjectWithKeys, 'sentryProjectId' | 'dsnKey'>>(p: T, base: string): WithDsn<T> =>
  ({ ...p, dsn: dsnOf(base, p) })

/** How the CLI and the first start print a project with its keys (the upload key when it was just made). */
export function describeKeys(p: WithDsn<Omit<ProjectWithKeys, 'uploadKey'> & { uploadKey?: string }>): string {
  return [
    `Project ${p.id}: ${p.name} (${p.domain})`,
    `  API key (secret, read-only; shown only now): ${p.apiKey}`,
    ...(p.uploadKey === undefined ? [] : [describeUploadKey(p.uploadKey)]),
    `  Ingest key (public, write-only; for the SDK): ${p.ingestKey}`,
    `  Sentry DSN (public, write-only; for an unmodified Sentry SDK): ${p.dsn}`,
  ].join('\n')
}

/** The line of a new upload key. */
export const describeUploadKey = (key: string): string => `  Upload key (secret, source map uploads only; shown only now): ${key}`

/**
 * One line of `project list`: the project, its retention, privacy settings and ingest limits, its key prefixes and its
 * DSN when known. `server` holds the defaults a project follows when it sets none.
 */
export function describeProject(p: ProjectSummary & { dsn?: string; recordingBytes?: number }, server: { ipStorage: IpStorage; ingestRateLimit: number }): string {
  const ip = p.ipStorage ?? `${server.ipStorage} (server default)`
  const masked = p.maskFields.length === 0 ? '' : `  masked fields ${p.maskFields.join(',')}`
  const perSecond = (n: number) => (n === 0 ? 'none' : `${n}/s`)
  const rate = p.ingestRateLimit === null ? `${perSecond(server.ingestRateLimit)} (server default)` : perSecond(p.ingestRateLimit)
  const quota = p.dailyEventQuota === null ? '' : `  daily quota ${p.dailyEventQuota} events`
  const recordings = `${p.recordingBytes === undefined ? '' : `  recordings ${sizeText(p.recordingBytes)}`}${p.recordingBudget === null ? '' : ` (budget ${sizeText(p.recordingBudget)})`}`
  const replays = p.publicReplays ? '  public replay links on' : ''
  return `${p.id}  ${p.name} (${p.domain})  retention ${p.retentionDays} d  IP ${ip}${masked}  rate limit ${rate}${quota}${recordings}${replays}  API key ${p.apiKeyPrefix}…  ${p.uploadKeyPrefix === null ? 'no upload key' : `upload key ${p.uploadKeyPrefix}…`}  ingest key ${p.ingestKey}${p.dsn === undefined ? '' : `  Sentry DSN ${p.dsn}`}`
}

/** Bytes as a person reads them, in the decimal units `--recording-budget` takes (1 MB = 10^6 bytes). */
export function sizeText(bytes: number): string {
  for (const [unit, size] of [['TB', 1e12], ['GB', 1e9], ['MB', 1e6], ['kB', 1e3]] as const) {
    if (bytes >= size) return `${(bytes / size).toFixed(bytes % size === 0 ? 0 : 1)} ${unit}`
  }
  return `${bytes} B`
}
