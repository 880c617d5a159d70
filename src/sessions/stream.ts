import { Readable } from 'node:stream'
import fastJson from 'fast-json-stringify'
import type { Db } from '../database.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import {
  CountersSchema, EventSchema, ProjectSchema, RecordingSchema, ResolvedFrameSchema, SessionDetailSchema, type EventView, type ResolvedFrame,
  type SessionDetailView,
} from '../contract/index.ts'
import type { Project } from '../projects/service.ts'
import { toEventViews } from './views.ts'
import { eventsAfter, listEvents, type EventRow } from '../visits/index.ts'
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

/** The answer's beginning: the project and session, then the events' list opened. */
const head = (project: Project, session: SessionDetailView): string =>
  `{"project":${projectJson(project)},"session":${sessionJson(session)},"events":[`

const memberJson = (key: 'stack' | 'frames') => fastJson(EventSchema.properties[key] as unknown as Parameters<typeof fastJson>[0], refs)
const stackJson = memberJson('stack')
const framesJson = memberJson('frames')

/**
 * Events as their JSON, each written by the response schema's serializer of an event. A stack and its frames are
 * written once and put in the place of each event's null `stack` and `frames`: a visit often repeats one stack, and
 * writing it and its mapped frames (source context included) for every event cost a source-mapped visit of 200
 * errors 40 % of its req/s.
 */
async function eventTexts(sourceMaps: SourceMapResolver, projectId: string, rows: readonly EventRow[]): Promise<string[]> {
  // By the stack's text, and by the frames' array: toEventViews gives the events of one stack (or of one SDK's frames) one array.
  const stacks = new Map<string, string>()
  const written = new Map<readonly ResolvedFrame[], string>()
  return (await toEventViews(sourceMaps, projectId, rows)).map((view) => {
    const { stack, frames } = view
    if (stack === null || frames === null) return eventViewJson(view)
    let stackText = stacks.get(stack)
    if (stackText === undefined) stacks.set(stack, stackText = stackJson(stack))
    let framesText = written.get(frames)
    if (framesText === undefined) written.set(frames, framesText = framesJson(frames))
    view.stack = null
    view.frames = null
    return withMember(withMember(eventViewJson(view), 'stack', stackText), 'frames', framesText)
  })
}

/**
 * `json` (an event its serializer wrote) with its null member `key` given `value`. `,"key":null` is the member: inside
 * a JSON string every `"` is escaped, so a comma and a quote mark begin a member.
 */
function withMember(json: string, key: keyof EventView, value: string): string {
  const name = `,${JSON.stringify(key)}:`
  const at = json.indexOf(`${name}null`)
  if (at < 0) throw new Error(`withMember: no null ${key} in the event's JSON`)
  return `${json.slice(0, at + name.length)}${value}${json.slice(at + name.length + 'null'.length)}`
}

/**
 * getSession's answer whole, as the stream writes it, in one buffer (send.ts joinList). Serialized as one object, the
 * answer was one V8 string that Fastify encoded again to count its bytes: that cost a visit of 200 errors 40 % of its
 * req/s.
 */
export async function wholeSession(
  db: Db, sourceMaps: SourceMapResolver, projectId: string, project: Project, session: SessionDetailView,
): Promise<Buffer> {
  return joinList(head(project, session), await eventTexts(sourceMaps, projectId, await listEvents(db, projectId, session.id)), ']}')
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
    return { texts: await eventTexts(sourceMaps, projectId, rows), next: cursorAfter(rows) }
  }
  async function* chunks(): AsyncGenerator<string | Buffer> {
    yield head(project, session)
    let after: Cursor | null = null
    let first = true
    do {
      const { texts, next } = await page(after)
      if (texts.length > 0) {
        yield joinList(first ? '' : ',', texts, '')
        first = false
      }
      after = next
    } while (after !== null)
    yield ']}'
  }
  return Readable.from(chunks(), { objectMode: false })
}
