import { LRUCache } from 'lru-cache'
import { parse } from 'stacktrace-parser'
import { STACK_CACHE_BYTES } from '../../common/limits.ts'
import { LRU_ENTRY_BYTES, OBJECT_BYTES, stringBytes } from '../shared/memory.ts'

/** One frame of a JavaScript stack, as the browser printed it. Lines and columns are 1-based, as every engine prints them. */
export interface Frame {
  /** The function name as printed (`u`, `async checkout`, `new Cart`, `fn/<`), or null when anonymous. */
  function: string | null
  /** The script URL as printed, or null (native code). */
  file: string | null
  line: number | null
  column: number | null
}

/** Frames beyond this are dropped: grouping looks at the top few and a page shows the top of the stack. */
export const MAX_FRAMES = 50

/** A V8 frame line: `    at …`. */
const V8_FRAME = /^\s*at\s/
/**
 * Firefox's code-from-a-string frames: `https://h/a.js line 2 > eval`, `… line 2 > Function`, `… > injectedScript`.
 * stacktrace-parser resolves only the `> eval` form; the others would keep the suffix in the file name.
 */
const GECKO_INNER = /^(.*?) line (\d+) > \S/

/**
 * Stacks parsed lately, by their text. One bug prints the same stack in every visit it hits, and ingest
 * (grouping, source-map lookup) and getSession parse the same text again and again; parsing is regex work
 * that costs more than the rest of grouping. Bounded by what its entries hold: the text, the frames, and
 * the text they were cut from (their names are slices of it, which keep it alive), so long stacks cannot
 * hog the heap.
 */
const parsed = new LRUCache<string, readonly Frame[]>({
  maxSize: STACK_CACHE_BYTES,
  sizeCalculation: (frames, text) => LRU_ENTRY_BYTES + 2 * stringBytes(text) + OBJECT_BYTES * (1 + frames.length * 3),
})

/**
 * Parses a stack trace of Chrome/V8, Firefox or Safari into frames, newest first (as printed).
 * stacktrace-parser (MIT, 34M downloads a month) knows the three formats plus eval and native
 * frames; lines it cannot read are skipped, so the raw text stays the authority and is kept.
 * The frames are shared with later callers of the same text: read them, never change them.
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
  const text = lines.some((l) => V8_FRAME.test(l)) ? lines.filter((l) => V8_FRAME.test(l)).join('\n') : stack
  const frames: Frame[] = []
  for (const f of parse(text)) {
    if (frames.length === MAX_FRAMES) break
    let file = f.file === null || f.file === '[native code]' || f.file === '<anonymous>' ? null : f.file
    let line = f.lineNumber
    let column = f.column
    const inner = file === null ? null : GECKO_INNER.exec(file)
    if (inner) {
      // As for `> eval`: the position of the call in the outer script, whose line is all Firefox gives.
      file = inner[1] ?? null
      line = Number(inner[2])
      column = null
    }
    if (file === null && line === null) continue
    frames.push({ function: f.methodName === '<unknown>' || f.methodName === '' ? null : f.methodName, file, line, column })
  }
  return frames
}
