import { Readable } from 'node:stream'
import fastJson from 'fast-json-stringify'
import type { Db } from '../db/database.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { ResolvedFrameSchema } from '../sourcemaps/schema.ts'
import type { Project } from '../projects/service.ts'
import { EventSchema, ProjectSchema, SessionDetailSchema, CountersSchema, RecordingSchema, type EventView, type SessionDetailView } from './schema.ts'
import { toEventViews } from './views.ts'
import { eventsAfter } from '../visits/read.ts'

/** Events read per query while streaming: bounds memory whatever the session's size. */
export const STREAM_PAGE = 1000

/*
 * Compiled from the very schemas the route declares, so a streamed answer is byte for byte what
 * Fastify would have serialized whole (a test compares the two).
 */
const refs = { schema: { EventCounters: CountersSchema, Recording: RecordingSchema, ResolvedFrame: ResolvedFrameSchema } }
const projectJson = fastJson(ProjectSchema, refs)
const sessionJson = fastJson(SessionDetailSchema, refs)
const eventJson = fastJson(EventSchema, refs)

/**
 * getSession's answer as a stream: the project and session first, then the events page by page
 * on the (createdAt, seq) index, so a session of 100,000 events never sits in memory at once.
 */
export function streamSession(
  db: Db, sourceMaps: SourceMapResolver, projectId: string, project: Project, session: SessionDetailView,
): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield `{"project":${projectJson(project)},"session":${sessionJson(session)},"events":[`
    let after: { createdAt: number; seq: number } | null = null
    let first = true
    for (;;) {
      const rows = await eventsAfter(db, projectId, session.id, after, STREAM_PAGE)
      if (rows.length > 0) {
        const views: EventView[] = await toEventViews(sourceMaps, projectId, rows)
        const text = views.map((view) => eventJson(view)).join(',')
        yield first ? text : `,${text}`
        first = false
      }
      const last = rows.at(-1)
      if (!last || rows.length < STREAM_PAGE) break
      after = { createdAt: last.created_at, seq: last.seq }
    }
    yield ']}'
  }
  return Readable.from(chunks(), { objectMode: false })
}
