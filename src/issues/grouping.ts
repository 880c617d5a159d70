import { LRUCache } from 'lru-cache'
import { GROUPING_CACHE_BYTES } from './limits.ts'
import type { EventRecord } from '../contract/index.ts'
import { LRU_ENTRY_BYTES, OBJECT_BYTES, stringBytes } from '../util/memory.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import type { EventGroup } from './store.ts'
import { GROUPED_TYPES, groupEvent, type GroupingInput } from './fingerprint.ts'
import { parseStack, type Frame } from '../sourcemaps/stack.ts'

/**
 * Maps an ERROR's printed frames to original source where a source map is stored: the same frames
 * in the same order, each the original frame or null where no map matches. Null when no frame maps
 * (a project without maps, a script without one), which lets grouping take its cached path.
 */
export type FrameMapper = (frames: readonly Frame[]) => Promise<(Frame | null)[] | null>

/**
 * Groupings of unmapped events lately computed, by the inputs grouping reads. One bug sends the same
 * message and stack from every visit it hits, and grouping (stack parsing, normalizing regexes, a hash)
 * costs more than storing the event. Bounded by what its entries hold (the key and the group's strings),
 * so long stacks and one-off messages cannot hog the heap.
 */
const recent = new LRUCache<string, { group: EventGroup | null }>({
  maxSize: GROUPING_CACHE_BYTES,
  sizeCalculation: ({ group }, key) => LRU_ENTRY_BYTES + stringBytes(key) + OBJECT_BYTES
    + (group === null ? 0 : OBJECT_BYTES + stringBytes(group.fingerprint) + stringBytes(group.title) + stringBytes(group.culprit)),
})

/** groupEvent of an event without mapped frames, computed once per distinct input while it stays in `recent`. */
function groupUnmapped(e: GroupingInput): EventGroup | null {
  const key = [
    e.type, e.message, e.stack, e.url, e.method, e.statusCode, e.fingerprint, e.frames ? JSON.stringify(e.frames) : '', e.detail?.selector ?? '', e.detail?.text ?? '',
  ].join('\u0000')
  let hit = recent.get(key)
  if (hit === undefined) {
    const computed = groupEvent(e)
    // Only what callers read: the components that made the fingerprint would double the entry.
    hit = { group: computed && { version: computed.version, fingerprint: computed.fingerprint, title: computed.title, culprit: computed.culprit } }
    recent.set(key, hit)
  }
  return hit.group
}

/**
 * The issue grouping of every event of a batch, for writeBatches: null for events that are not
 * grouped (every type but GROUPED_TYPES). An ERROR's stack goes through `mapFrames` first,
 * so a bundle whose map is already uploaded groups by its original functions and files.
 */
export async function groupEvents(events: readonly EventRecord[], mapFrames?: FrameMapper): Promise<(EventGroup | null)[]> {
  const groups: (EventGroup | null)[] = []
  for (const e of events) {
    if (!GROUPED_TYPES.includes(e.type)) {
      groups.push(null)
      continue
    }
    // A server SDK's frames are its source's own: no map applies to them.
    const mapped = e.type === 'ERROR' && e.stack && mapFrames && e.fingerprint === null && !e.frames ? await mapFrames(parseStack(e.stack)) : null
    groups.push(mapped === null ? groupUnmapped(e) : groupEvent(e, mapped))
  }
  return groups
}

/** The FrameMapper of a project's uploaded source maps: the frames a map matches, as the original source names them. */
export const sourceMapMapper = (sourceMaps: SourceMapResolver, projectId: string): FrameMapper => async (frames) => {
  const resolved = await sourceMaps.resolveFrames(projectId, frames)
  if (!resolved.some((f) => f.mapped)) return null
  return resolved.map((f) => (f.mapped ? { function: f.function, file: f.file, line: f.line, column: f.column } : null))
}
