import { LRUCache } from 'lru-cache'
import { CAUSED_BY } from '../../common/text.ts'
import { MAX_STACK_LINE_LENGTH, STACK_CACHE_BYTES } from './limits.ts'
import { LRU_ENTRY_BYTES, OBJECT_BYTES, stringBytes } from '../util/memory.ts'

/** One frame of a JavaScript stack, as the browser printed it. Lines and columns are 1-based, as every engine prints them. */
export interface Frame {
  /** The function name as printed (`u`, `async checkout`, `new Cart`, `fn/<`), or null when anonymous. */
  function: string | null
  /** The script URL as printed, or null (native code). */
  file: string | null
  line: number | null
  column: number | null
  /** Absent on the frames of the error thrown; n on those of its n-th cause, after the stack's n-th CAUSED_BY line. */
  cause?: number
}


/** The heads (`Type: message`) of a stack's causes, in order: empty for an error with no chain. */
export function causeHeads(stack: string): string[] {
  const heads: string[] = []
  for (let at = stack.indexOf(`\n${CAUSED_BY}`); at >= 0; at = stack.indexOf(`\n${CAUSED_BY}`, at + 1)) {
    const end = stack.indexOf('\n', at + 1)
    heads.push(stack.slice(at + 1 + CAUSED_BY.length, end < 0 ? stack.length : end))
  }
  return heads
}

/** Frames beyond this are dropped: grouping looks at the top few and a page shows the top of the stack. */
export const MAX_FRAMES = 50

/** A V8 frame line: `    at …`. */
const V8_FRAME = /^\s*at\s/

/**
 * Stacks parsed lately, by their text. One bug prints the same stack in every visit it hits, and ingest
 * (grouping, source-map lookup) and getSession parse the same text again and again, and parsing costs more
 * than the rest of grouping. Bounded by what its entries hold: the text, the frames, and
 * the text they were cut from (their names are slices of it, which keep it alive), so long stacks cannot
 * hog the heap.
 */
const parsed = new LRUCache<string, readonly Frame[]>({
  maxSize: STACK_CACHE_BYTES,
  sizeCalculation: (frames, text) => LRU_ENTRY_BYTES + 2 * stringBytes(text) + OBJECT_BYTES * (1 + frames.length * 3),
})

/**
 * Parses a stack trace of Chrome/V8, Firefox or Safari into frames, newest first (as printed): named, anonymous,
 * async, constructor, eval and Firefox's code-from-a-string frames; native frames and lines that are no frame
 * are skipped, so the raw text stays the authority and is kept. Linear in the text: stacktrace-parser's regexes,
 * used before, took 2.9 s on one 32 KB line of `(` (and a visitor sends the stack), so each line is read by
 * indexOf and slices alone, and a line over MAX_STACK_LINE_LENGTH characters is no frame. The frames are shared
 * with later callers of the same text: read them, never change them.
 */
export function parseStack(stack: string): readonly Frame[] {
  let frames = parsed.get(stack)
  if (frames === undefined) {
    frames = Object.freeze(parseFrames(stack).map((f) => Object.freeze(f)))
    parsed.set(stack, frames)
  }
  return frames
}

function parseFrames(stack: string): Frame[] {
  // A V8 stack opens with the error's message, which may span lines and end like a frame (`connect to
  // localhost:8080`): when the stack has `at` lines, only they are frames.
  const lines = stack.split('\n')
  const v8 = lines.some((l) => V8_FRAME.test(l))
  const frames: Frame[] = []
  let cause = 0
  for (const raw of lines) {
    if (frames.length === MAX_FRAMES) break
    if (raw.startsWith(CAUSED_BY)) cause++
    const line = raw.trim()
    if (line.length > MAX_STACK_LINE_LENGTH || (v8 && !V8_FRAME.test(line))) continue
    const frame = v8 ? v8Frame(line.slice(3).trimStart()) : geckoFrame(line)
    if (frame !== null && (frame.file !== null || frame.line !== null)) frames.push(cause === 0 ? frame : { ...frame, cause })
  }
  return frames
}

/**
 * A V8 frame after its `at `: `fn (location)` or the location alone, where the location is `file:line:column`,
 * `native`, `<anonymous>`, or for eval'd code `eval at fn (file:line:column), <anonymous>:line:column` — which
 * stands for the eval call in the script, as eval'd code has no file of its own.
 */
function v8Frame(rest: string): Frame | null {
  let name: string | null = null
  let location = rest
  const space = rest.indexOf(' (')
  const open = rest.startsWith('(') ? 0 : space < 0 ? -1 : space + 1
  if (open >= 0) {
    if (!rest.endsWith(')')) return null
    name = rest.slice(0, open).trim() || null
    location = rest.slice(open + 1, -1)
  }
  if (location.startsWith('eval at ')) {
    const start = location.indexOf('(')
    const end = location.indexOf(')', start)
    const call = start < 0 || end < 0 ? null : position(location.slice(start + 1, end))
    if (call !== null && call.column !== null) return { function: name, ...call }
  }
  if (location === 'native' || location.startsWith('native ') || location === '<anonymous>') return null
  const at = position(location)
  // A location without a line is a frame only as a named function's URL or path: `at foo (bar)` and a bare
  // `at https://…` are not what a browser prints.
  if (at.line === null && (open < 0 || !/^(?:[a-z][a-z\d+.-]*:|\/)/i.test(location))) return null
  // Code with no script of its own (`at <anonymous>:1:1`, a `new Function` body) has no file.
  return { function: name, ...at, file: at.file === '<anonymous>' ? null : at.file }
}

/**
 * A Firefox or Safari frame: `fn@location`, `@location`, or (Safari's global code, old engines) the location
 * alone, which then needs a line number; `[native code]` frames have no file. Firefox prints code made from a
 * string as `file line N > eval` (or `> Function`, `> injectedScript`): the position of the call in the outer
 * script, whose line is all Firefox gives.
 */
function geckoFrame(line: string): Frame | null {
  const at = line.indexOf('@')
  let name = at < 0 ? null : line.slice(0, at)
  // Old engines printed the arguments after the name: `fn(a,b)@…`.
  const args = name === null || !name.endsWith(')') ? -1 : name.indexOf('(')
  if (name !== null && args >= 0) name = name.slice(0, args)
  const location = at < 0 ? line : line.slice(at + 1)
  if (location === '' || location === '[native code]') return null
  let where = position(location)
  if (where.line === null && (at < 0 || !/^[a-z][a-z\d+.-]*:/i.test(location))) return null
  const inner = innerCode(where.file ?? '')
  if (inner !== null) where = { ...inner, column: null }
  return { function: name || null, ...where }
}

/** `file line N > …` (Firefox's code from a string) as the outer file and line N, or null. */
function innerCode(file: string): { file: string; line: number } | null {
  const mark = file.indexOf(' line ')
  if (mark < 0) return null
  const digits = leadingDigits(file, mark + 6)
  if (digits === 0 || !file.startsWith(' > ', mark + 6 + digits)) return null
  return { file: file.slice(0, mark), line: Number(file.slice(mark + 6, mark + 6 + digits)) }
}

/** A location split into its file and the `:line` and `:line:column` at its end, as every engine prints them. */
function position(location: string): { file: string | null; line: number | null; column: number | null } {
  let file = location.trim()
  const last = trailingNumber(file)
  if (last === null) return { file: file || null, line: null, column: null }
  file = file.slice(0, last.at)
  const before = trailingNumber(file)
  if (before === null) return { file: file || null, line: last.value, column: null }
  file = file.slice(0, before.at)
  return { file: file || null, line: before.value, column: last.value }
}

/** The number after the last `:` of a text that ends in one, with where its `:` is. */
function trailingNumber(text: string): { value: number; at: number } | null {
  let i = text.length
  while (i > 0 && isDigit(text.charCodeAt(i - 1))) i--
  if (i === text.length || i === 0 || text[i - 1] !== ':' || text.length - i > 15) return null
  return { value: Number(text.slice(i)), at: i - 1 }
}

function leadingDigits(text: string, from: number): number {
  let i = from
  while (i < text.length && isDigit(text.charCodeAt(i))) i++
  return i - from
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57
