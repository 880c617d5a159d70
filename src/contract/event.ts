import Type, { type Static } from 'typebox'
import { MAX_DURATION_MS, MAX_CLICK_COUNT } from './limits.ts'
import { VITAL_NAMES, VITAL_RATINGS } from '../../common/vitals.ts'
import { Nullable, StringEnum } from '../util/schema.ts'
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
  selector: Type.String({ description: 'RAGE_CLICK and DEAD_CLICK: a short CSS selector of the clicked element.' }),
  text: Type.String({ description: 'RAGE_CLICK and DEAD_CLICK: the clicked element\'s visible text.' }),
  count: Type.Integer({ minimum: 1, maximum: MAX_CLICK_COUNT, description: 'RAGE_CLICK: the clicks on the element in the burst.' }),
  name: StringEnum(VITAL_NAMES, { description: 'WEB_VITAL: the metric.' }),
  value: Type.Number({
    minimum: 0, maximum: MAX_DURATION_MS,
    description: 'WEB_VITAL: the metric\'s value, in milliseconds (CLS: the unitless layout shift score).',
  }),
  rating: StringEnum(VITAL_RATINGS, {
    description: 'WEB_VITAL: web.dev\'s rating of the value, computed by the service from `name` and `value` (a sent rating is replaced).',
  }),
  element: Type.String({
    description: 'WEB_VITAL: the element the metric names, as a CSS selector: LCP\'s largest element, INP\'s interaction target, CLS\'s largest shift source.',
  }),
}
type Fields = typeof EVENT_FIELDS
export type EventField = keyof Fields
const EVENT_FIELD_NAMES = Object.keys(EVENT_FIELDS) as EventField[]
/** The fields holding free text, which are bounded (TEXT_LIMITS) and scrubbed; `name` and `rating` are enumerations. */
export type TextField = Exclude<{ [K in EventField]: Static<Fields[K]> extends string ? K : never }[EventField], 'name' | 'rating'>

/**
 * The fields of the three frustration and vitals types, which no other type has: stored together in the events
 * table's `detail` column.
 */
export const DETAIL_FIELDS = ['selector', 'text', 'count', 'name', 'value', 'rating', 'element'] as const satisfies readonly EventField[]
export type DetailField = (typeof DETAIL_FIELDS)[number]
export type EventDetail = { [K in DetailField]?: Static<Fields[K]> }

/**
 * The fields the API leaves out when they do not apply (the spec types url and method string, and the detail fields
 * belong to a few types); the others are null then.
 */
const ABSENT_WHEN_EMPTY = ['url', 'method', ...DETAIL_FIELDS] as const
type AbsentField = (typeof ABSENT_WHEN_EMPTY)[number]

/**
 * The frames a server Sentry SDK sent structured, stored beside the event's `stack` text: they carry what the text
 * cannot, which frames are the app's (`in_app`) and the source around each (src/sentry/event.ts). No client of the
 * ingest API sends them; absent for every other event.
 */
export interface SdkFrames { frames?: readonly ResolvedFrame[] | null }
/**
 * An event as stored and served inside the service: times in epoch ms, absent values null, and the detail fields
 * (DETAIL_FIELDS) apart, present only on the types that have them.
 */
export type EventRecord = { id: string; type: string; createdAt: number }
  & { [K in Exclude<EventField, DetailField>]: Static<Fields[K]> | null } & SdkFrames & { detail?: EventDetail | null }
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
