/**
 * The only way the dashboard puts anything on screen: elements built with text nodes and
 * setAttribute, never innerHTML. Visitor data (messages, URLs, bodies) is hostile by assumption;
 * as text it cannot become markup.
 */
type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value)
    else el.setAttribute(key, value === true ? '' : String(value))
  }
  append(el, ...children)
  return el
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

export const clear = (el: Element): void => { el.replaceChildren() }

/** A button that copies `text()` to the clipboard and says so. */
export function copyButton(text: () => string, label = 'Copy'): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy' }, label)
  button.addEventListener('click', () => {
    void navigator.clipboard.writeText(text()).then(
      () => { button.textContent = 'Copied' },
      () => { button.textContent = 'Select and copy by hand' },
    ).finally(() => { setTimeout(() => { button.textContent = label }, 1500) })
  })
  return button
}

/** A read-only code block with a copy button. */
export const codeBlock = (code: string, id?: string): HTMLElement =>
  h('div', { class: 'code' }, h('pre', { id }, code), copyButton(() => code))

export const formatTime = (iso: string): string => new Date(iso).toLocaleString(undefined, { hour12: false })

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}
