import type { ClickSignals } from './clicks.ts'
import { selectorOf, shortText } from './dom.ts'
import { errorEvent } from './errors.ts'
import { inputMasked, requestEvent, type RequestOptions } from './privacy.ts'
import type { SdkEvent } from './queue.ts'

export interface CaptureOptions {
  slowThresholdMs: number
  maxBodyChars: number
  maskInputs: boolean
  captureConsole: boolean
}

/** The options as capture applies them, `networkBodies` and `maskFields` included (privacy.ts). */
export interface Capture extends CaptureOptions, RequestOptions {}

type Emit = (event: Omit<SdkEvent, 'id' | 'createdAt'>) => void
type Guard = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void

/**
 * What a click lands on: the nearest link, button, field or element with onclick, else the element itself. Those
 * but fields should visibly act on a click: dead clicks are looked for on them only.
 */
const CLICKABLE = 'a,button,input,select,textarea,summary,[role=button],[onclick]'
/** Form fields, where repeated clicks select text and nothing need change: neither rage nor dead clicks. */
const FIELD = 'label,select,textarea,[contenteditable],input:not([type=button],[type=submit],[type=reset],[type=image])'

/** Installs every listener and wrapper; each one runs under `guard`, so nothing the SDK does can throw into the page. */
export function installCapture(opts: Capture, emit: Emit, guard: Guard, isOwn: (url: string) => boolean, signals: Omit<ClickSignals, 'hide'>): void {
  const w = window
  const network = (url: string, method: string, status: number | null, started: number, reqBody: unknown, resBody: string | null) => {
    const event = requestEvent(opts, url, method, status, Math.round(performance.now() - started), reqBody, resBody)
    if (event) emit(event)
  }

  w.addEventListener('error', guard((e: ErrorEvent) => {
    if (!(e instanceof ErrorEvent)) return
    const err = e.error as { stack?: string } | null
    emit({ type: 'ERROR', message: e.message || String(e.error), stack: err?.stack ?? null, url: location.href })
  }))
  w.addEventListener('unhandledrejection', guard((e: PromiseRejectionEvent) => {
    // With the error's type, as the error event's message has it (`Uncaught TypeError: …`): grouping reads it there.
    const event = errorEvent(e.reason, null, location.href)
    emit({ ...event, message: `Unhandled rejection: ${event.message}` })
  }))
  if (opts.captureConsole) {
    const original = console.error.bind(console)
    console.error = (...args: unknown[]) => {
      guard(() => { emit({ type: 'CONSOLE_ERROR', message: args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ') }) })()
      original(...args)
    }
  }

  const nativeFetch = w.fetch.bind(w)
  w.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input)
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const started = performance.now()
    if (isOwn(url)) return nativeFetch(input, init)
    guard(signals.activity)()
    try {
      const res = await nativeFetch(input, init)
      // A body that will not be kept is not even read.
      const text = res.status >= 400 && opts.bodies(url) ? await res.clone().text().catch(() => null) : null
      guard(() => { network(url, method, res.status, started, init?.body, text) })()
      return res
    } catch (error) {
      guard(() => { network(url, method, null, started, init?.body, null) })()
      throw error
    }
  }

  const proto = XMLHttpRequest.prototype
  // Taken unbound on purpose: each wrapper re-applies them to its own instance with .call().
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const open = proto.open
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const send = proto.send
  const meta = new WeakMap<XMLHttpRequest, { url: string; method: string }>()
  proto.open = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
    meta.set(this, { method: method.toUpperCase(), url: String(url) })
    ;(open as (...a: unknown[]) => void).call(this, method, url, ...rest)
  }
  proto.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    const m = meta.get(this)
    if (m && !isOwn(m.url)) {
      guard(signals.activity)()
      const started = performance.now()
      this.addEventListener('loadend', guard(() => {
        const res = this.responseType === '' || this.responseType === 'text' ? this.responseText : null
        network(m.url, m.method, this.status === 0 ? null : this.status, started, body, this.status >= 400 ? res : null)
      }))
    }
    send.call(this, body)
  }

  if (typeof PerformanceObserver !== 'undefined') {
    new PerformanceObserver(guard((list: PerformanceObserverEntryList) => {
      for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
        // fetch and XHR are timed by their wrappers above.
        if (entry.duration > opts.slowThresholdMs && !['fetch', 'xmlhttprequest'].includes(entry.initiatorType) && !isOwn(entry.name)) {
          emit({ type: 'SLOW_REQUEST', url: entry.name, durationMs: Math.round(entry.duration), message: entry.initiatorType })
        }
      }
    })).observe({ type: 'resource', buffered: true })
  }

  let lastUrl = ''
  const navigated = guard(() => {
    signals.activity()
    if (location.href !== lastUrl) emit({ type: 'NAVIGATION', url: (lastUrl = location.href) })
  })
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name].bind(history)
    history[name] = (...args: Parameters<History['pushState']>) => {
      original(...args)
      navigated()
    }
  }
  w.addEventListener('popstate', navigated)
  w.addEventListener('hashchange', navigated)
  navigated()

  const clicked = (e: Event) => (e.target instanceof Element ? e.target.closest(CLICKABLE) ?? e.target : null)
  document.addEventListener('pointerdown', guard((e: PointerEvent) => {
    const el = clicked(e)
    if (el && e.isTrusted && !el.closest(FIELD)) signals.press(el, el.matches(CLICKABLE))
  }), true)
  document.addEventListener('click', guard((e: MouseEvent) => {
    const el = clicked(e)
    if (!el) return
    const text = shortText(el)
    const selector = selectorOf(el)
    const url = location.href
    emit({ type: 'CLICK', message: text ? `${selector} "${text}"` : selector, url })
    // Clicks a script makes (el.click()) are no visitor's frustration.
    if (!e.isTrusted || el.closest(FIELD)) return
    const link = el.closest('a[href]')
    signals.click({
      el, selector, text, url, checked: el.matches(CLICKABLE),
      // A link the browser follows (another page, a new tab, a download) did its work, whatever the page shows meanwhile.
      followed: () => !!link && !e.defaultPrevented && !/^(#|javascript:)/i.test(link.getAttribute('href') ?? ''),
      selected: () => { const s = getSelection(); return !!s && !s.isCollapsed && s.containsNode(el, true) },
    })
  }), true)
  document.addEventListener('change', guard((e: Event) => {
    const el = e.target as HTMLInputElement | null
    if (!el || !('value' in el)) return
    // Passwords and fields named as secret are never sent; other values only when the site turned masking off.
    const secret = inputMasked(el, opts.maskInputs, opts.maskFields)
    emit({ type: 'INPUT', message: secret ? selectorOf(el) : `${selectorOf(el)} = ${JSON.stringify(el.value.slice(0, 200))}`, url: location.href })
  }), true)
}

/** Scrolling this soon after a press is the click's doing (a "back to top" button); later it is the visitor's. */
const SCROLL_MS = 300

/**
 * The page's watch for a response: any DOM change (a MutationObserver on the document, only while a check runs), a
 * scroll just after the press, a navigation starting (beforeunload) or a form's validation message (invalid).
 */
export function pageWatch(seen: () => void): () => void {
  const observer = new MutationObserver(seen)
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
  const start = performance.now()
  const scrolled = () => { if (performance.now() - start < SCROLL_MS) seen() }
  const listeners = [['beforeunload', seen], ['invalid', seen], ['scroll', scrolled]] as const
  for (const [type, fn] of listeners) addEventListener(type, fn, true)
  return () => {
    observer.disconnect()
    for (const [type, fn] of listeners) removeEventListener(type, fn, true)
  }
}
