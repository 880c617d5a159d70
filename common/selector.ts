/*
 * How an element is named in a short CSS selector, from its tag and attributes alone: the SDK reads them from the DOM,
 * the service from a Sentry replay's recorded node. Pure and dependency-free, like the rest of common/.
 */

/** The attributes the selector reads; any may be absent. */
export interface SelectorAttributes {
  id?: string | null
  name?: string | null
  class?: string | null
}

/**
 * One element's part of a selector: `tag#id`, else `tag[name=…]`, else the tag with its first two classes.
 *
 * @example
 * elementSelector('BUTTON', { class: 'btn primary large' }) // 'button.btn.primary'
 */
export function elementSelector(tag: string, attributes: SelectorAttributes): string {
  const name = tag.toLowerCase()
  if (attributes.id) return `${name}#${attributes.id}`
  if (attributes.name) return `${name}[name=${attributes.name}]`
  const classes = (attributes.class ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2)
  return classes.length > 0 ? `${name}.${classes.join('.')}` : name
}
