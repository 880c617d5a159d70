import { Readable } from 'node:stream'
import fastJson from 'fast-json-stringify'
import type { Db } from '../database.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import { CountersSchema, EventSchema, ProjectSchema, RecordingSchema, ResolvedFrameSchema, SessionDetailSchema, type SessionDetailView } from '../contract/index.ts'
import type { Project } from '../projects/service.ts'
import { toEventViews } from './views.ts'
import { eventsAfter } from '../visits/index.ts'
import { joinList } from '../http/send.ts'

/** Events read per query while streaming: bounds memory whatever the session's size. */
export const STREAM_PAGE = 1000

/*
 * Compiled from the very schemas the route declares, so a streamed answer is byte for byte what
 * Fastify would have serialized whole (a test compares the two).
 */
const refs = { schema: { EventCounters: CountersSchema, Recording: RecordingSchema, ResolvedFrame: ResolvedFrameSchema } }
const projectJson = fastJson(ProjectSchema, refs)
const sessionJson = fastJson(SessionDetailSchema, refs)
const eventViewJson = fastJson(EventSchema, refs)

type Cursor = { createdAt: number; seq: number }

/** The cursor after a page's last row; null after a short page, the last one. */
function cursorAfter(rows: readonly { created_at: number; seq: number }[]): Cursor | null {
  const last = rows.at(-1)
  return last && rows.length === STREAM_PAGE ? { createdAt: last.created_at, seq: last.seq } : null
}

/**
 * getSession's answer as a stream: the project and session first, then the events page by page
 * on the (createdAt, seq) index, so a session of 100,000 events never sits in memory at once.
 */
export function streamSession(
  db: Db, sourceMaps: SourceMapResolver, projectId: string, project: Project, session: SessionDetailView,
): Readable {
  // A page's events as JSON, and the cursor after its last.
  const page = async (after: Cursor | null): Promise<{ texts: string[]; next: Cursor | null }> => {
    const rows = await eventsAfter(db, projectId, session.id, after, STREAM_PAGE)
    return { texts: (await toEventViews(sourceMaps, projectId, rows)).map((view) => eventViewJson(view)), next: cursorAfter(rows) }
  }
  async function* chunks(): AsyncGenerator<string | Buffer> {
    yield `{"project":${projectJson(project)},"session":${sessionJson(session)},"events":[`
    let after: Cursor | null = null
    let first = true
    do {
      const { texts, next } = await page(after)
      if (texts.length > 0) {
        // A page is ~300 KB: written as a buffer, not joined into one string (send.ts joinList).
        yield joinList(first ? '' : ',', texts, '')
        first = false
      }
      after = next
    } while (after !== null)
    yield ']}'
  }
  return Readable.from(chunks(), { objectMode: false })
}
