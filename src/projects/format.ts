import type { IpStorage } from '../privacy/ip.ts'
import type { ProjectSummary, ProjectWithKeys } from './service.ts'

/** How the CLI and the first start print a project with its keys. */
export function describeKeys(p: ProjectWithKeys): string {
  return [
    `Project ${p.id}: ${p.name} (${p.domain})`,
    `  API key (secret, read-only; shown only now): ${p.apiKey}`,
    `  Ingest key (public, write-only; for the SDK): ${p.ingestKey}`,
  ].join('\n')
}

/** One line of `project list`: the project, its retention and privacy settings, and its key prefixes. */
export function describeProject(p: ProjectSummary, serverIpStorage: IpStorage): string {
  const ip = p.ipStorage ?? `${serverIpStorage} (server default)`
  const masked = p.maskFields.length === 0 ? '' : `  masked fields ${p.maskFields.join(',')}`
  return `${p.id}  ${p.name} (${p.domain})  retention ${p.retentionDays} d  IP ${ip}${masked}  API key ${p.apiKeyPrefix}…  ingest key ${p.ingestKey}`
}
