import type { SessionEvent } from '../api.ts'
import { CAUSED_BY } from '../../../common/text.ts'
import { h } from '../dom.ts'

type Frame = NonNullable<SessionEvent['frames']>[number]

/**
 * An event's stack as people read it: each frame mapped to its original file, line and function
 * when a source map was uploaded (or as a server SDK sent it), with the source around the line; library
 * frames dimmed; a chained error's causes each under its `Caused by:` line. The raw text as the SDK
 * sent it folds out below.
 */
export function stackBlock(e: SessionEvent, id?: string): HTMLElement | null {
  if (!e.stack) return null
  const frames = e.frames ?? []
  const raw = h('details', { class: 'raw-stack' }, h('summary', {}, 'Raw stack'), h('pre', { class: 'stack' }, e.stack))
  const mapped = frames.some((f) => f.mapped)
  // The stack's `Caused by: …` lines head a chained error's causes, in order (the service writes them so).
  const causes = e.stack.split('\n').filter((l) => l.startsWith(CAUSED_BY))
  if (!mapped && causes.length === 0 && !frames.some((f) => f.context !== null)) {
    return h('div', { class: 'stack-block', id }, h('pre', { class: 'stack' }, e.stack))
  }
  const items = frames.filter((f) => f.cause === undefined).map((f) => frameItem(f, mapped))
  causes.forEach((head, i) => {
    // A cause may have no frames (Python's `raise … from KeyError(…)`): its line still says what it was.
    items.push(h('li', { class: 'cause' }, head), ...frames.filter((f) => f.cause === i + 1).map((f) => frameItem(f, mapped)))
  })
  return h('div', { class: 'stack-block', id }, h('ol', { class: 'frames' }, ...items), raw)
}

/** A frame; `maps` when some frame of the stack was source-mapped, so that an unmapped one says it has no map. */
function frameItem(f: Frame, maps: boolean): HTMLElement {
  const where = [f.file ?? '<unknown>', f.line, f.column].filter((x) => x !== null).join(':')
  const head = h('div', { class: 'frame-head' }, h('b', {}, f.function ?? '<anonymous>'), ' ', h('span', { class: 'where' }, where),
    f.mapped || !maps ? null : h('span', { class: 'unmapped' }, ' (no source map)'))
  const { context, line: at } = f
  return h('li', { class: `frame${f.inApp ? '' : ' library'}${f.mapped ? ' mapped' : ''}` }, head,
    context && at !== null
      ? h('pre', { class: 'context' },
        ...context.pre.map((l, i) => line(at - context.pre.length + i, l, false)),
        line(at, context.line, true),
        ...context.post.map((l, i) => line(at + 1 + i, l, false)))
      : null)
}

const line = (n: number, text: string, current: boolean) =>
  h('span', { class: current ? 'line current' : 'line' }, h('span', { class: 'ln' }, String(n).padStart(5)), ` ${text}\n`)
