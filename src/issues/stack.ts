import { parse } from 'stacktrace-parser'

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

/**
 * Parses a stack trace of Chrome/V8, Firefox or Safari into frames, newest first (as printed).
 * stacktrace-parser (MIT, 34M downloads a month) knows the three formats plus eval and native
 * frames; lines it cannot read are skipped, so the raw text stays the authority and is kept.
 */
export function parseStack(stack: string): Frame[] {
  const frames: Frame[] = []
  for (const f of parse(stack)) {
    if (frames.length === MAX_FRAMES) break
    const file = f.file === null || f.file === '[native code]' || f.file === '<anonymous>' ? null : f.file
    if (file === null && f.lineNumber === null) continue
    frames.push({
      function: f.methodName === '<unknown>' || f.methodName === '' ? null : f.methodName,
      file,
      line: f.lineNumber,
      column: f.column,
    })
  }
  return frames
}
