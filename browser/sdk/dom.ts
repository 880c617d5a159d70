import { elementSelector } from '../../common/selector.ts'

/** A short, readable CSS selector for an element: its own part (common/selector.ts) and one parent's for context. */
export function selectorOf(el: Element | null): string {
  if (!el) return ''
  const part = (e: Element) => elementSelector(e.tagName, { id: e.id, name: e.getAttribute('name'), class: e.getAttribute('class') })
  const self = part(el)
  const parent = el.parentElement
  return parent && !el.id && parent !== document.body ? `${part(parent)} > ${self}` : self
}

/** The visible text of an element, squeezed and cut to `max` characters. */
export function shortText(el: Element, max = 40): string {
  const text = ((el as HTMLElement).innerText || el.textContent || '').replace(/\s+/g, ' ').trim()
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
