import fastJson from 'fast-json-stringify'
import { CountersSchema, EventSchema, ProjectSchema, RecordingSchema, SessionDetailSchema, SessionSchema } from '../../src/contract/session.ts'
import { ResolvedFrameSchema } from '../../src/contract/frame.ts'
import { DetailResponse, ListResponse } from '../../src/sessions/schema.ts'

/*
 * The read API's answers as their routes' response schemas serialize them, compiled as Fastify compiles them: a
 * streamed getSession, written piece by piece, must still be exactly these bytes.
 */
const refs = {
  schema: {
    Project: ProjectSchema, Session: SessionSchema, EventCounters: CountersSchema, SessionDetail: SessionDetailSchema,
    Recording: RecordingSchema, SessionEvent: EventSchema, ResolvedFrame: ResolvedFrameSchema,
  },
}

/** listSessions' answer. */
export const serializeList = fastJson(ListResponse, refs)

/** getSession's answer. */
export const serializeDetail = fastJson(DetailResponse, refs)

/** One session of listSessions' answer. */
export const serializeSession = fastJson(SessionSchema, refs)
