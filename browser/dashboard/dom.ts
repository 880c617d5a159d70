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

/** A button that copies `text()` to the clipboard and says so; a label given as a function is asked again afterwards. */
export function copyButton(text: () => string, label: string | (() => string) = 'Copy'): HTMLButtonElement {
  const words = () => (typeof label === 'string' ? label : label())
  const button = h('button', { type: 'button', class: 'copy' }, words())
  button.addEventListener('click', () => {
    void navigator.clipboard.writeText(text()).then(
      () => { button.textContent = 'Copied' },
      () => { button.textContent = 'Select and copy by hand' },
    ).finally(() => { setTimeout(() => { button.textContent = words() }, 1500) })
  })
  return button
}

/** A read-only code block with its copy button in a bar above it, so the button never covers a long line. */
export const codeBlock = (code: string, id?: string): HTMLElement =>
  h('div', { class: 'code' }, h('div', { class: 'code-bar' }, copyButton(() => code)),
    // Focusable: a long line scrolls sideways, and keyboard users must be able to scroll it too.
    h('pre', { id, tabindex: 0 }, code))

/** An instant as people read it unambiguously: ISO-ordered date, 24-hour time, and the zone it is shown in (the browser's). */
export function formatTime(iso: string): string {
  const parts: Record<string, string> = {}
  for (const p of TIME_FORMAT.formatToParts(new Date(iso))) parts[p.type] = p.value
  return `${parts.year ?? ''}-${parts.month ?? ''}-${parts.day ?? ''} ${parts.hour ?? ''}:${parts.minute ?? ''}:${parts.second ?? ''} ${parts.timeZoneName ?? ''}`.trim()
}
const TIME_FORMAT = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
})

/** How long ago, in a word or two ("5 min ago"); past a month, the date. */
export function relativeTime(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000)
  if (s < 45) return 'just now'
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  if (s < 30 * 86_400) return `${Math.round(s / 86_400)} d ago`
  return formatTime(iso).slice(0, 10)
}

/** A relative time whose hover (and screen-reader text) is the absolute time, in the browser's zone and in UTC. */
export const timeTag = (iso: string): HTMLElement =>
  h('time', { datetime: iso, title: `${formatTime(iso)} (${iso.slice(0, 19).replace('T', ' ')} UTC)` }, relativeTime(iso))

/**
 * A position in a visit as the replay player shows it: minutes and seconds (hours when needed), rounded
 * down like the player's own clock, so the timeline and the player never disagree by a second.
 */
export function clock(ms: number): string {
  // Before the player's 00:00 (an event just before the recording began): the player cannot show it, the timeline says so.
  if (ms <= -1000) return `−${clock(-ms)}`
  if (ms < 0) return '00:00'
  const total = Math.floor(ms / 1000)
  const pad = (n: number) => String(n).padStart(2, '0')
  const hours = Math.floor(total / 3600)
  const rest = `${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`
  return hours > 0 ? `${pad(hours)}:${rest}` : rest
}

/** "1 event", "3 events": a count with its noun (nouns here take an "s"). */
export const plural = (n: number, noun: string): string => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}

/** A table that reads as labelled rows on a phone: each cell carries its column's name (style.css shows it there). */
export function stackedTable(id: string, headers: readonly string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  for (const row of rows) {
    Array.from(row.cells).forEach((cell, i) => { if (headers[i]) cell.setAttribute('data-label', headers[i]) })
  }
  return h('table', { class: 'list stacked', id },
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))), h('tbody', {}, ...rows))
}

/** The path and query of a URL, without the origin every page of a site shares; the text as given when it is not a URL. */
export function pagePath(url: string): string {
  try {
    const u = new URL(url)
    return `${u.pathname}${u.search}` || '/'
  } catch {
    return url
  }
}
