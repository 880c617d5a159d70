import { SOURCE_CONTEXT_LINES } from '../contract/limits.ts'
import type { ResolvedFrame } from '../contract/index.ts'
import { isInApp } from '../issues/index.ts'
import { MAX_SOURCE_CONTEXT_LINE_LENGTH } from '../sourcemaps/limits.ts'
import { CAUSED_BY } from '../../common/text.ts'
import { MAX_FRAMES } from '../sourcemaps/stack.ts'
import { SENTRY_MAX_CHAIN, SENTRY_MAX_CONTEXT_CHARS, SENTRY_MAX_FRAME_NAME_LENGTH } from './limits.ts'
import { cut, type Json, num, obj, objects, str, text } from './values.ts'

/** An ERROR as a Sentry event's exceptions make it, without its id, time, page and fingerprint. */
export interface ErrorParts { message: string; stack?: string; frames?: ResolvedFrame[] }

/**
 * A Sentry event's exceptions (oldest cause first, as Sentry lists them) as one ERROR: the error thrown, with its
 * causes in its stack (a CAUSED_BY line opening each), so that a chain is one event and one issue as in Sentry.
 *
 * The stack is written as V8 prints one (newest frame first, `at fn (file:line:col)`), so grouping, source maps and
 * the stack view read every SDK's alike. A server SDK's frames (`server`: any platform but the browser's) are also
 * kept structured, for what the text cannot say: which are the app's (the SDK's in_app, appInFrames) and their
 * source context. A browser's are not: @sentry/browser marks every frame in_app, its own bundle's too, and its
 * stacks are mapped through uploaded source maps when read.
 */
export function errorOf(exceptions: readonly Json[], server: boolean): ErrorParts {
  const chain = exceptions.slice(-SENTRY_MAX_CHAIN).reverse()
  const lines: string[] = []
  const frames: ResolvedFrame[] = []
  chain.forEach((exception, cause) => {
    const head = firstLine(headOf(exception))
    lines.push(cause === 0 ? head : `${CAUSED_BY}${head}`)
    const sent = objects(obj(exception.stacktrace)?.frames).slice(-MAX_FRAMES).reverse()
    const marked = sent.some((f) => f.in_app === true)
    for (const frame of sent) {
      const resolved = frameOf(frame, marked, cause)
      lines.push(resolved.function !== null && resolved.function !== '?' ? `    at ${resolved.function} (${where(resolved)})` : `    at ${where(resolved)}`)
      frames.push(resolved)
    }
  })
  boundContext(frames)
  const thrown = chain[0]
  return {
    message: text(thrown === undefined ? 'Error' : headOf(thrown), 'message') ?? 'Error',
    ...(frames.length > 0 && { stack: text(lines.join('\n'), 'stack') }),
    ...(server && frames.length > 0 && { frames }),
  }
}

/**
 * The exception's type as its language names it: whole in `type` (`Shop::PaymentDeclined`, `App\Exception\Declined`),
 * or split into `module` and `type` (Python's `json.decoder` and `JSONDecodeError`, Java's `com.shop` and `Declined$Card`).
 */
export function typeOf(exception: Json): string | undefined {
  const type = str(exception.type)
  const module = str(exception.module)
  // sentry-ruby sends the whole name and its namespace as module too (`Shop::PaymentDeclined`, `Shop`).
  return type !== undefined && module !== undefined && !QUALIFIED.test(type) ? `${module}.${type}` : type
}

/** A type name that already says where it lives: `a.B`, `A::B`, `A\\B`. */
const QUALIFIED = /\.|::|\\/

/** `Type: value`, as a stack's first line and the event's message say it. */
function headOf(exception: Json): string {
  const type = typeOf(exception)
  const value = str(exception.value)
  return type !== undefined && value !== undefined ? `${type}: ${value}` : value ?? type ?? 'Error'
}

const firstLine = (value: string): string => value.split('\n', 1)[0] ?? value

function where(frame: ResolvedFrame): string {
  const file = frame.file ?? '<anonymous>'
  return frame.line === null ? file : frame.column === null ? `${file}:${frame.line}` : `${file}:${frame.line}:${frame.column}`
}

/**
 * A Sentry frame as stored. It is the app's when the SDK says so: when any frame of its stack is marked in_app, the
 * unmarked are not the app's; when none is, those not marked `false` are, as for our own SDK (isInApp). Code of a
 * runtime's library (node_modules, site-packages, a standard library) never is, however marked: sentry-python 1.x
 * marks every frame when nothing tells it the app's modules. Source context is kept for the app's frames only, as
 * for source-mapped frames: it is what a reader looks at, and library context would multiply an event's bytes.
 */
function frameOf(frame: Json, marked: boolean, cause: number): ResolvedFrame {
  const file = cut(str(frame.abs_path) ?? str(frame.filename), SENTRY_MAX_FRAME_NAME_LENGTH) ?? null
  const line = positive(frame.lineno)
  const inApp = isInApp(file ?? str(frame.module) ?? null) && (marked ? frame.in_app === true : frame.in_app !== false)
  return {
    function: cut(str(frame.function), SENTRY_MAX_FRAME_NAME_LENGTH) ?? null, file, line, column: positive(frame.colno), mapped: false, inApp,
    context: inApp && line !== null ? contextOf(frame) : null,
    ...(cause > 0 && { cause }),
  }
}

const positive = (value: unknown): number | null => {
  const n = num(value)
  return n !== undefined && Number.isInteger(n) && n >= 1 ? n : null
}

/** The source lines the SDK read around the frame, as many and as long as a source map's context (SOURCE_CONTEXT_LINES). */
function contextOf(frame: Json): ResolvedFrame['context'] {
  const own = typeof frame.context_line === 'string' ? frame.context_line : undefined
  if (own === undefined) return null
  const lines = (value: unknown) => (Array.isArray(value) ? value : []).map((l) => (typeof l === 'string' ? l.slice(0, MAX_SOURCE_CONTEXT_LINE_LENGTH) : ''))
  return {
    pre: lines(frame.pre_context).slice(-SOURCE_CONTEXT_LINES),
    line: own.slice(0, MAX_SOURCE_CONTEXT_LINE_LENGTH),
    post: lines(frame.post_context).slice(0, SOURCE_CONTEXT_LINES),
  }
}

/** Source context kept on the newest frames, SENTRY_MAX_CONTEXT_CHARS over them all: the failing lines are what is read. */
function boundContext(frames: ResolvedFrame[]): void {
  let left = SENTRY_MAX_CONTEXT_CHARS
  frames.forEach((frame, i) => {
    const { context } = frame
    if (context === null) return
    left -= [...context.pre, context.line, ...context.post].reduce((n, l) => n + l.length, 0)
    if (left < 0) frames[i] = { ...frame, context: null }
  })
}
