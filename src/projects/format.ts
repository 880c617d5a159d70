import type { ProjectWithKeys } from './service.ts'

/** How the CLI and the first start print a project with its keys. */
export function describeKeys(p: ProjectWithKeys): string {
  return [
    `Project ${p.id}: ${p.name} (${p.domain})`,
    `  API key (secret, read-only; shown only now): ${p.apiKey}`,
    `  Ingest key (public, write-only; for the SDK): ${p.ingestKey}`,
  ].join('\n')
}
