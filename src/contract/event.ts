import Type, { type Static } from 'typebox'
import { MAX_DURATION_MS } from './limits.ts'
import { Nullable } from '../util/schema.ts'
import type { ResolvedFrame } from './frame.ts'

/**
 * An event's fields beyond its id, type and time: defined here once. Every shape of an event derives
 * from this — the stored record (EventRecord), the API's SessionEvent, the ingest body's IngestEvent
 * and the import/export TransferEvent — so a new field is added here and in the table.
 */
export const EVENT_FIELDS = {
  url: Type.String({ description: 'Page URL or request URL.' }),
  method: Type.String({ description: 'HTTP method of the request.' }),
  message: Type.String({ description: 'Error text or event caption.' }),
  stack: Type.String({
    description: 'JavaScript stack trace of an error, kept as the browser printed it (minified when the code is): '
      + 'getSession\'s `frames` holds it mapped through uploaded source maps.',
  }),
  statusCode: Type.Integer({ minimum: 100, maximum: 599, description: 'HTTP status of a network event; null on network failure.' }),
  durationMs: Type.Number({ minimum: 0, maximum: MAX_DURATION_MS, description: 'Request duration in milliseconds.' }),
  reqBody: Type.String({ description: 'Request body; password-like values masked as "***", card numbers as "[card …1234]".' }),
  resBody: Type.String({ description: 'Response body of a failed request.' }),
  fingerprint: Type.String({
    description: 'Grouping key chosen by the page (Sessionwatch.captureError(error, { fingerprint })): ERROR and HTTP_ERROR '
      + 'events with the same one form one issue, whatever their message and stack.',
  }),
}
type Fields = typeof EVENT_FIELDS
export type EventField = keyof Fields
const EVENT_FIELD_NAMES = Object.keys(EVENT_FIELDS) as EventField[]
/** The fields holding text, which are bounded (TEXT_LIMITS) and scrubbed. */
export type TextField = { [K in EventField]: Static<Fields[K]> extends string ? K : never }[EventField]

/** The fields the API leaves out when they do not apply (the spec types them string); the others are null then. */
const ABSENT_WHEN_EMPTY = ['url', 'method'] as const
type AbsentField = (typeof ABSENT_WHEN_EMPTY)[number]

/**
 * The frames a server Sentry SDK sent structured, stored beside the event's `stack` text: they carry what the text
 * cannot, which frames are the app's (`in_app`) and the source around each (src/sentry/event.ts). No client of the
 * ingest API sends them; absent for every other event.
 */
export interface SdkFrames { frames?: readonly ResolvedFrame[] | null }
/** An event as stored and served inside the service: times in epoch ms, absent values null. */
export type EventRecord = { id: string; type: string; createdAt: number } & { [K in EventField]: Static<Fields[K]> | null } & SdkFrames
/** An event as a client sent it (ingest, import), once its id and time are settled: any field may be missing. */
export type EventInput = { id: string; type: string; createdAt: number } & { [K in EventField]?: Static<Fields[K]> | null } & SdkFrames

type Field<K extends EventField> = Fields[K]
type Described = { description?: string }
const describe = <K extends EventField>(key: K, suffix: string): Field<K> =>
  ({ ...EVENT_FIELDS[key], description: `${(EVENT_FIELDS[key] as Described).description ?? ''} ${suffix}` })

/** The API's fields: url and method absent when they do not apply, every other field present and null then. */
export type ViewFields = { [K in AbsentField]: Type.TOptional<Field<K>> } & { [K in Exclude<EventField, AbsentField>]: Type.TUnsafe<Static<Field<K>> | null> }
export const viewFields = (): ViewFields => Object.fromEntries(EVENT_FIELD_NAMES.map((key) => [key,
  (ABSENT_WHEN_EMPTY as readonly string[]).includes(key)
    ? Type.Optional(describe(key, 'Absent when the event has none (never null).'))
    : Nullable(describe(key, 'Null when not applicable.'))])) as unknown as ViewFields

/** The fields as clients send them (ingest, import): each may be left out or null. */
export type InputFields = { [K in EventField]: Type.TOptional<Type.TUnsafe<Static<Field<K>> | null>> }
export const inputFields = (): InputFields =>
  Object.fromEntries(EVENT_FIELD_NAMES.map((key) => [key, Type.Optional(Nullable(EVENT_FIELDS[key]))])) as unknown as InputFields
