import type { Kysely } from 'kysely'
import { REGROUP_ISSUES } from './limits.ts'
import type { Database } from '../database.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { aliasFingerprints } from './store.ts'
import { latestIssueEvent, recentErrorIssues } from './read.ts'
import { groupEvent } from './fingerprint.ts'
import { sourceMapMapper } from './grouping.ts'
import { parseStack } from '../sourcemaps/stack.ts'

/**
 * After source maps are uploaded: the same bug fingerprints differently once its frames are mapped
 * (`u@app-X.js` before, `checkout@src/cart.ts` after). Each recent ERROR issue's latest stack is
 * grouped again through the maps, and a new fingerprint is pointed at the issue it came from, so
 * the bug's next events join that issue instead of opening a second one. Returns how many
 * fingerprints it added. Bounded to REGROUP_ISSUES issues, the most recently seen.
 */
export async function regroupAfterUpload(db: Kysely<Database>, sourceMaps: SourceMapResolver, projectId: string): Promise<number> {
  const mapFrames = sourceMapMapper(sourceMaps, projectId)
  const aliases: { fingerprint: string; version: number; issueId: string }[] = []
  for (const issueId of await recentErrorIssues(db, projectId, REGROUP_ISSUES)) {
    const e = await latestIssueEvent(db, projectId, issueId, 0)
    // A page-chosen fingerprint ignores the stack, and a server SDK's frames are its source's own: a map changes neither.
    if (!e?.stack || e.fingerprint !== null || e.frames !== null) continue
    const mapped = await mapFrames(parseStack(e.stack))
    if (mapped === null) continue
    const group = groupEvent({
      type: e.type, message: e.message, stack: e.stack, url: e.url, method: e.method, statusCode: e.status_code, fingerprint: null,
    }, mapped)
    if (group) aliases.push({ fingerprint: group.fingerprint, version: group.version, issueId })
  }
  return aliasFingerprints(db, projectId, aliases)
}
