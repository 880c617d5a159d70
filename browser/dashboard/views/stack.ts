import type { SessionEvent } from '../api.ts'
import { h } from '../dom.ts'

type Frame = NonNullable<SessionEvent['frames']>[number]

/**
 * An event's stack as people read it: each frame mapped to its original file, line and function
 * when a source map was uploaded, with the source around the line; library frames dimmed. The raw
 * text as the browser sent it folds out below.
 */
export function stackBlock(e: SessionEvent, id?: string): HTMLElement | null {
  if (!e.stack) return null
  const frames = e.frames ?? []
  const raw = h('details', { class: 'raw-stack' }, h('summary', {}, 'Raw stack'), h('pre', { class: 'stack' }, e.stack))
  if (!frames.some((f) => f.mapped)) return h('div', { class: 'stack-block', id }, h('pre', { class: 'stack' }, e.stack))
  return h('div', { class: 'stack-block', id },
    h('ol', { class: 'frames' }, ...frames.map(frameItem)), raw)
}

function frameItem(f: Frame): HTMLElement {
  const where = [f.file ?? '<unknown>', f.line, f.column].filter((x) => x !== null).join(':')
  const head = h('div', { class: 'frame-head' }, h('b', {}, f.function ?? '<anonymous>'), ' ', h('span', { class: 'where' }, where),
    f.mapped ? null : h('span', { class: 'unmapped' }, ' (no source map)'))
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
