/**
 * `sessionwatch project delete --project ID --yes [--json]` (src/projects/delete.ts does the work): progress on
 * standard error, the summary on standard output. Without --yes it only says what would go.
 */
import type { Kysely } from 'kysely'
import { args, required, UsageError } from './cli-options.ts'
import type { Database } from './database.ts'
import { deleteProject } from './projects/delete.ts'
import { getProject } from './projects/service.ts'
import type { RecordingStores } from './recording/store/index.ts'
import { countVisits } from './visits/index.ts'
import type { CliIo } from './cli-sourcemaps.ts'

/** Runs `project delete`; resolves to the exit code (a usage error without --yes). */
export async function projectDelete(db: Kysely<Database>, stores: RecordingStores, rest: string[], io: Pick<CliIo, 'print' | 'note'>): Promise<number> {
  const { values } = args(rest, { project: { type: 'string' }, yes: { type: 'boolean' }, json: { type: 'boolean' } })
  const project = await getProject(db, required(values, 'project'))
  if (values.yes !== true) {
    const visits = await countVisits(db, project.id)
    throw new UsageError(`project delete would delete project ${project.id} (${project.name}, ${project.domain}) with its ${visits} visits, `
      + 'their events and recordings, its issues, webhooks, source maps and release health, and its keys; nothing can bring them back. '
      + 'Add --yes to delete it')
  }
  const result = await deleteProject(db, stores, project.id, {
    onProgress: (n) => { io.note(`deleted ${n} visits…`) },
  })
  io.print(values.json ? JSON.stringify(result)
    : `deleted project ${project.id} (${project.name}): ${result.visits} visits, ${result.objects} recording objects; its keys no longer work`)
  return 0
}
