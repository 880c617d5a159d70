/** A short, readable CSS selector for an element: tag, id or name, classes, and one parent for context. */
export function selectorOf(el: Element | null): string {
  if (!el) return ''
  const part = (e: Element): string => {
    let s = e.tagName.toLowerCase()
    if (e.id) return `${s}#${e.id}`
    const name = e.getAttribute('name')
    if (name) return `${s}[name=${name}]`
    const classes = (e.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2)
    if (classes.length > 0) s += `.${classes.join('.')}`
    return s
  }
  const self = part(el)
  const parent = el.parentElement
  return parent && !el.id && parent !== document.body ? `${part(parent)} > ${self}` : self
}

/** The visible text of an element, squeezed and cut to `max` characters. */
export function shortText(el: Element, max = 40): string {
  const text = ((el as HTMLElement).innerText || el.textContent || '').replace(/\s+/g, ' ').trim()
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
