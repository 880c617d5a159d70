import { MAX_SOURCE_CONTEXT_LINE_LENGTH, SOURCE_FUNCTION_SCAN_LINES } from './limits.ts'
import { SOURCE_CONTEXT_LINES } from '../contract/limits.ts'

/*
 * Reading an original source file out of a map's sourcesContent: its lines around a position, and
 * the name of the function around it. Positions are 0-based lines and columns, as in the map.
 */

/** Where each line of a text starts, so a line is found without splitting the whole file per frame. */
export function lineStarts(text: string): Uint32Array {
  const starts = [0]
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
  return Uint32Array.from(starts)
}

function lineAt(text: string, starts: Uint32Array, line: number): string | undefined {
  const start = starts[line]
  if (start === undefined) return undefined
  const end = starts[line + 1]
  return text.slice(start, end === undefined ? text.length : end - 1).replace(/\r$/, '')
}

/** Lines before and after a frame's line, and the line itself. */
export interface SourceContext {
  pre: string[]
  line: string
  post: string[]
}

/**
 * SOURCE_CONTEXT_LINES lines either side of `line`, each cut to MAX_SOURCE_CONTEXT_LINE_LENGTH characters — the
 * frame's own line around `column`, so a long line still shows where it failed. Null when the line is not there.
 */
export function contextAt(text: string, starts: Uint32Array, line: number, column: number): SourceContext | null {
  const own = lineAt(text, starts, line)
  if (own === undefined) return null
  const around = (from: number, to: number) => {
    const lines: string[] = []
    for (let l = Math.max(0, from); l < to; l++) lines.push(cut(lineAt(text, starts, l) ?? '', 0))
    return lines
  }
  const post = around(line + 1, Math.min(starts.length, line + 1 + SOURCE_CONTEXT_LINES))
  return { pre: around(line - SOURCE_CONTEXT_LINES, line), line: cut(own, column), post }
}

function cut(text: string, column: number): string {
  const max = MAX_SOURCE_CONTEXT_LINE_LENGTH
  if (text.length <= max) return text
  const start = Math.min(Math.max(0, column - Math.floor(max / 2)), text.length - max)
  return `${start > 0 ? '…' : ''}${text.slice(start, start + max)}${start + max < text.length ? '…' : ''}`
}

const IDENT = '#?[A-Za-z_$][\\w$]*'
const FUNCTION = new RegExp(`\\bfunction\\b\\s*\\*?\\s*(${IDENT})?\\s*(?=[(<])`, 'g')
const ARROW_BLOCK = /=>\s*\{/g
const METHOD = new RegExp(`^\\s*(?:(?:static|async|get|set|public|private|protected|override|readonly|abstract)\\s+)*\\*?\\s*(${IDENT})\\s*(?:<[^>]*>)?\\s*(?=\\()`)
/** `name =`, `name:` or `name: Type =` just before a function expression names it, as engines infer the name. */
const ASSIGNED = new RegExp(`(${IDENT})\\s*(?::\\s*[^=:;,]+?\\s*)?(?:=|:)\\s*(?:async\\s*)?$`)
const NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'function', 'typeof', 'await', 'new',
  'super', 'do', 'else', 'yield', 'delete', 'void', 'throw', 'case', 'import', 'export'])

interface Header {
  name: string | null
  /** Offset of the body's `{` when `block`, else of the parameter list the body follows. */
  at: number
  block: boolean
}

/**
 * The name of the innermost function whose body holds the position, found in the original text;
 * null when that function is anonymous, or there is none (top-level code) or none is recognized.
 *
 * A map links tokens to tokens, so the name a map gives the error position is that of the token there
 * (a property, or the callee of a call), not of the enclosing function (triage.md §2.6). The original
 * source says which function it is: the nearest function header above the position whose body has not
 * closed before it. Headers: `function name(`, `name = function`, `name = (…) => {`, `name: …`, and
 * methods `name(…) {`; strings, comments and template literals are skipped when matching braces.
 *
 * @example
 * enclosingFunction('function checkout(cart) {\n  return cart.coupon.code\n}', 1, 14) // "checkout"
 */
export function enclosingFunction(text: string, starts: Uint32Array, line: number, column: number): string | null {
  const target = (starts[line] ?? text.length) + column
  for (let l = line; l >= 0 && l > line - SOURCE_FUNCTION_SCAN_LINES; l--) {
    const start = starts[l] ?? 0
    const source = lineAt(text, starts, l) ?? ''
    if (/^\s*(?:\/\/|\/\*|\*)/.test(source)) continue
    const headers = headersOn(l === line ? source.slice(0, column) : source, start)
    for (const header of headers) {
      const open = header.block ? header.at : bodyOf(text, header.at, target)
      if (open !== -1 && open < target && stillOpen(text, open, target)) return header.name
    }
  }
  return null
}

/** The function headers of one line, the one nearest its end first. */
function headersOn(source: string, offset: number): Header[] {
  const headers: Header[] = []
  for (const m of source.matchAll(FUNCTION)) {
    headers.push({ name: m[1] ?? assignedName(source.slice(0, m.index)), at: offset + m.index + m[0].length, block: false })
  }
  for (const m of source.matchAll(ARROW_BLOCK)) {
    headers.push({ name: arrowName(source.slice(0, m.index)), at: offset + m.index + m[0].length - 1, block: true })
  }
  const method = METHOD.exec(source)
  if (method?.[1] !== undefined && !NOT_METHODS.has(method[1])) {
    // A constructor is a function of its own, but its name says nothing: the frame keeps the one it printed.
    headers.push({ name: method[1] === 'constructor' ? null : method[1], at: offset + method[0].length, block: false })
  }
  return headers.sort((a, b) => b.at - a.at)
}

function assignedName(before: string): string | null {
  return ASSIGNED.exec(before)?.[1] ?? null
}

/** The name an arrow function is assigned to, from the text before its `=>`: `name = (a, b)`, `name = async a`. */
function arrowName(before: string): string | null {
  const text = before.replace(/\)\s*:\s*[^()]*$/, ')').trimEnd()
  let paramsStart: number
  if (text.endsWith(')')) {
    let depth = 0
    paramsStart = -1
    for (let i = text.length - 1; i >= 0; i--) {
      if (text[i] === ')') depth++
      else if (text[i] === '(' && --depth === 0) {
        paramsStart = i
        break
      }
    }
    if (paramsStart === -1) return null
  } else {
    const param = /[A-Za-z_$][\w$]*$/.exec(text)
    if (!param) return null
    paramsStart = param.index
  }
  return assignedName(text.slice(0, paramsStart).replace(/(?<![\w$])async\s*$/, ''))
}

/** The offset of the body `{` after a parameter list at `from`, or -1 when none comes (a call, an expression body). */
function bodyOf(text: string, from: number, limit: number): number {
  let depth = 0
  let found = -1
  walkCode(text, from, limit, (char, at) => {
    if (char === '(' || char === '[') depth++
    else if (char === ')' || char === ']') depth--
    else if (depth === 0 && char === '{') found = at
    else if (depth === 0 && (char === ';' || char === '}' || (char === '=' && text[at + 1] === '>' && !/^=>\s*\{/.test(text.slice(at, at + 40))))) return true
    return found !== -1 || depth < 0
  })
  return found
}

/** Whether the block opened at `open` is still open at `target`. */
function stillOpen(text: string, open: number, target: number): boolean {
  let depth = 0
  let closed = false
  walkCode(text, open, target, (char) => {
    if (char === '{') depth++
    else if (char === '}' && --depth === 0) closed = true
    return closed
  })
  return !closed
}

/**
 * Calls `visit` with each character of code from `from` to `to`, skipping comments, string literals and the
 * text of template literals (their `${…}` is code); `visit` returning true stops the walk.
 */
function walkCode(text: string, from: number, to: number, visit: (char: string, at: number) => boolean): void {
  // For each `${` open, the brace depth at which its `}` goes back to the template's text.
  const templates: number[] = []
  let braces = 0
  const templateText = (start: number): number => {
    for (let j = start; j < to; j++) {
      const c = text[j]
      if (c === '\\') j++
      else if (c === '`') return j + 1
      else if (c === '$' && text[j + 1] === '{') {
        templates.push(braces)
        return j + 2
      }
    }
    return to
  }
  let i = from
  while (i < to) {
    const c = text[i] ?? ''
    const next = text[i + 1]
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i)
      i = end === -1 ? to : end
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end === -1 ? to : end + 2
    } else if (c === '"' || c === '\'') {
      i = quoted(text, i, to)
    } else if (c === '`') {
      i = templateText(i + 1)
    } else if (c === '}' && templates.length > 0 && templates.at(-1) === braces) {
      templates.pop()
      i = templateText(i + 1)
    } else {
      if (c === '{') braces++
      else if (c === '}') braces--
      if (visit(c, i)) return
      i++
    }
  }
}

/** The offset after a quoted string starting at `start`; an unterminated one ends at its line. */
function quoted(text: string, start: number, to: number): number {
  const quote = text[start]
  for (let j = start + 1; j < to; j++) {
    const c = text[j]
    if (c === '\\') j++
    else if (c === quote) return j + 1
    else if (c === '\n') return j
  }
  return to
}
