import { decodedMappings, traceSegment, type TraceMap } from '@jridgewell/trace-mapping'
import { SOURCEMAP_FRAME_MEMO } from './limits.ts'
import type { Frame } from './stack.ts'
import { contextAt, enclosingFunction, lineStarts } from './original.ts'
import type { ResolvedFrame } from '../contract/index.ts'

/*
 * One stack frame through one parsed map: the part of resolving that needs no database.
 */

/** Estimated heap of one decoded mapping segment, for the map cache's byte bound. */
const SEGMENT_BYTES = 100
/** A character V8 cannot store in a one-byte (Latin-1) string; rare control characters count too, erring high. */
const TWO_BYTE = /[^\t\n\r\x20-\xff]/
/** Heap of one remembered frame with its context lines, roughly. */
const FRAME_BYTES = 2048

/**
 * What a parsed map holds on the heap, estimated: its decoded segments, its sources' text (one byte a
 * character, two when a text needs them, as V8 stores strings), and the frames remembered with it.
 * The map's file size says little: mappings and sourcesContent weigh differently once parsed.
 */
function heapOf(map: TraceMap): number {
  const segments = decodedMappings(map).reduce((n, line) => n + line.length, 0)
  const text = (map.sourcesContent ?? []).reduce((n, c) => n + (c === null ? 0 : c.length * (TWO_BYTE.test(c) ? 2 : 1)), 0)
  return segments * SEGMENT_BYTES + text + SOURCEMAP_FRAME_MEMO * FRAME_BYTES
}

/** A parsed map with what frames computed from it: line offsets of its sources, and frames already resolved. */
export interface LoadedMap {
  map: TraceMap
  /** Estimated heap, which the cache is bounded by. */
  size: number
  starts: Map<number, Uint32Array>
  frames: Map<string, ResolvedFrame>
}

/** A parsed map ready for frames, its heap estimated for the cache that keeps it. */
export function loadedMap(map: TraceMap): LoadedMap {
  return { map, size: heapOf(map), starts: new Map(), frames: new Map() }
}

/** A frame no map applies to: as printed. */
export function unmappedFrame(frame: Frame): ResolvedFrame {
  return { ...frame, mapped: false, inApp: !notInApp(frame.file), context: null }
}

/** Library or browser code rather than the site's own: people look past these frames to find their bug. */
const notInApp = (file: string | null): boolean =>
  file !== null && (/(?:^|\/)node_modules\//.test(file) || /^(?:chrome|moz|safari(?:-web)?)-extension:/.test(file))

/**
 * One frame through its map. Browsers print 1-based columns and maps count them from 0, so the lookup
 * takes column − 1 and the answer gets 1 back. Frames repeat across the events of a page, so each
 * answer is kept with its map (up to SOURCEMAP_FRAME_MEMO of them).
 */
export function mapFrame(loaded: LoadedMap, frame: Frame): ResolvedFrame {
  const { line, column } = frame
  if (line === null || column === null || line < 1 || column < 1) return unmappedFrame(frame)
  const memoKey = `${line}:${column}:${frame.function ?? ''}`
  const known = loaded.frames.get(memoKey)
  if (known) return known.cause === frame.cause ? known : { ...known, cause: frame.cause }
  const { map } = loaded
  const segment = traceSegment(map, line - 1, column - 1)
  if (segment?.length !== 4 && segment?.length !== 5) return unmappedFrame(frame)
  const [, sourceIndex, sourceLine, sourceColumn] = segment
  const source = map.resolvedSources[sourceIndex] ?? null
  const text = map.sourcesContent?.[sourceIndex] ?? null
  let starts = loaded.starts.get(sourceIndex)
  if (text !== null && !starts) {
    starts = lineStarts(text)
    loaded.starts.set(sourceIndex, starts)
  }
  const enclosing = text !== null && starts ? enclosingFunction(text, starts, sourceLine, sourceColumn) : null
  // Async and constructor frames say so before the name (`async u`, `new t`): the original name keeps the word.
  const prefix = /^(?:async|new) /.exec(frame.function ?? '')?.[0] ?? ''
  const inApp = !notInApp(source) && !notInApp(frame.file) && !(map.ignoreList?.includes(sourceIndex) ?? false)
  const resolved: ResolvedFrame = {
    function: frame.function !== null && enclosing !== null ? prefix + enclosing : frame.function,
    file: source,
    line: sourceLine + 1,
    column: sourceColumn + 1,
    mapped: true,
    inApp,
    // Library code is rarely what a reader looks at, and its context would make a page of errors
    // several times larger (each frame's 11 lines, for every event): only the site's own code gets it.
    context: inApp && text !== null && starts ? contextAt(text, starts, sourceLine, sourceColumn) : null,
    ...(frame.cause !== undefined && { cause: frame.cause }),
  }
  if (loaded.frames.size >= SOURCEMAP_FRAME_MEMO) loaded.frames.clear()
  loaded.frames.set(memoKey, resolved)
  return resolved
}
