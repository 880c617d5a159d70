import type { EventRecord } from '../events/types.ts'
import type { SourceMapResolver } from '../sourcemaps/resolve.ts'
import type { EventGroup } from '../visits/issues.ts'
import { groupEvent } from './fingerprint.ts'
import { parseStack, type Frame } from './stack.ts'

/**
 * Maps an ERROR's printed frames to original source where a source map is stored: the same frames
 * in the same order, each the original frame or null where no map matches.
 */
export type FrameMapper = (frames: readonly Frame[]) => Promise<(Frame | null)[]>

/**
 * The issue grouping of every event of a batch, for writeBatches: null for events that are not
 * grouped (every type but ERROR and HTTP_ERROR). An ERROR's stack goes through `mapFrames` first,
 * so a bundle whose map is already uploaded groups by its original functions and files.
 */
export async function groupEvents(events: readonly EventRecord[], mapFrames?: FrameMapper): Promise<(EventGroup | null)[]> {
  const groups: (EventGroup | null)[] = []
  for (const e of events) {
    if (e.type === 'ERROR' && e.stack && mapFrames && e.fingerprint === null) {
      groups.push(groupEvent(e, await mapFrames(parseStack(e.stack))))
    } else {
      groups.push(groupEvent(e))
    }
  }
  return groups
}

/** The FrameMapper of a project's uploaded source maps: the frames a map matches, as the original source names them. */
export const sourceMapMapper = (sourceMaps: SourceMapResolver, projectId: string): FrameMapper => async (frames) =>
  (await sourceMaps.resolveFrames(projectId, frames))
    .map((f) => (f.mapped ? { function: f.function, file: f.file, line: f.line, column: f.column } : null))
