/**
 * Error grouping, version 1: which issue an ERROR or HTTP_ERROR event belongs to. Pure: no I/O, no clock.
 *
 * An event's fingerprint is the hex SHA-256 of the grouping version and a list of normalized components. The
 * components are kept so the issue page can show why events grouped. docs/api.md ("Grouping rules") states the
 * same rules for users; any change to what these functions return for some event changes its fingerprint, and so
 * needs a new GROUPING_VERSION (the snapshot in test/unit/issues/fingerprint.test.ts is there to notice).
 *
 * 1. An explicit `fingerprint` (from `Sessionwatch.captureError(error, { fingerprint })`) wins: the components are
 *    `fingerprint:<value>` and `event:<ERROR|HTTP_ERROR>`. Title and culprit are still computed from the event.
 * 2. ERROR: `type:<error type>` (errorType), `message:<normalized message>` (normalizeMessage), then up to three
 *    `frame:<function>@<path>` (or `frame:<path>`) of the top in-app frames (isInApp, normalizePath, frameName);
 *    no frame components when no frame is in-app, so vendor-only stacks group on type and message alone.
 *    A source-mapped frame stands in for its raw frame, with its original function name. Frames a server SDK sent
 *    (`frames`) are the app's as it marked them. A chained error adds the same three kinds of component for each
 *    cause, in order (the stack's CAUSED_BY lines): the whole chain is one issue.
 * 3. HTTP_ERROR: `method:<METHOD>`, `url:<template>` (urlTemplate), `status:<code>` or `status:network`.
 * 4. RAGE_CLICK: `event:RAGE_CLICK`, `selector:<selector>`, `url:<template>` of the page: one element of one page
 *    template, so its rage clicks alert like an error. A new type changes no fingerprint of the others.
 */
import { createHash } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import { causeHeads, parseStack, type Frame } from '../sourcemaps/stack.ts'

export const GROUPING_VERSION = 1

/** The event types grouped into issues; every other type is not. */
export const GROUPED_TYPES: readonly string[] = ['ERROR', 'HTTP_ERROR', 'RAGE_CLICK']

/** The inputs grouping reads from an event (EventRecord has them all). */
export interface GroupingInput {
  type: string
  message: string | null
  stack: string | null
  url: string | null
  method: string | null
  statusCode: number | null
  fingerprint: string | null
  /** The frames a server SDK sent, its in_app marks decided (src/sentry/event.ts): they stand in for the stack's. */
  frames?: readonly { function: string | null; file: string | null; inApp: boolean; cause?: number }[] | null
  /** A RAGE_CLICK's element: its selector and visible text. */
  detail?: { selector?: string; text?: string } | null
}

export interface Grouping {
  /** GROUPING_VERSION. */
  version: number
  /** Hex SHA-256 of the version and the components: stable across processes and releases of the service. */
  fingerprint: string
  /** The normalized parts hashed, in order, e.g. ['type:TypeError', 'message:Order <int> has no items', 'frame:checkout@/static/app.js']. */
  components: string[]
  /**
   * ERROR: `TypeError: Order <int> has no items`; HTTP_ERROR: `POST /api/orders/:id → 500` (`→ network error` without a
   * status); RAGE_CLICK: `Rage clicks on "Pay now"` (the element's text, else its selector).
   */
  title: string
  /**
   * ERROR: the top in-app frame as `function (path)` or the path; HTTP_ERROR: the URL template, with its origin when it
   * has one; RAGE_CLICK: `<selector> on <page template>`.
   */
  culprit: string | null
}

/** Frames of an ERROR that take part in grouping. */
export const GROUPING_FRAMES = 3
/** Longest normalized message grouped on, and longest title. */
export const MESSAGE_MAX = 500
export const TITLE_MAX = 200

/**
 * Groups an event of GROUPED_TYPES; null for any other type. `mapped[i]`, when given, is the source-mapped
 * version of parseStack(stack)[i] (null where unmapped): grouping uses it in place of the raw frame.
 */
export function groupEvent(event: GroupingInput, mapped?: readonly (Frame | null)[]): Grouping | null {
  let computed: { components: string[]; title: string; culprit: string | null }
  if (event.type === 'ERROR') computed = groupError(event, mapped ?? [])
  else if (event.type === 'HTTP_ERROR') computed = groupHttp(event)
  else if (event.type === 'RAGE_CLICK') computed = groupRageClick(event)
  else return null
  // An empty fingerprint is no choice of the page's: the event groups by its contents.
  const components = event.fingerprint ? [`fingerprint:${event.fingerprint}`, `event:${event.type}`] : computed.components
  const fingerprint = createHash('sha256').update(JSON.stringify([GROUPING_VERSION, ...components])).digest('hex')
  return { version: GROUPING_VERSION, fingerprint, components, title: cut(computed.title, TITLE_MAX), culprit: computed.culprit }
}

function groupError(event: GroupingInput, mapped: readonly (Frame | null)[]) {
  const type = errorType(event.message, event.stack)
  const message = normalizeMessage(event.message ?? '', type)
  const chain = groupedFrames(event, mapped)
  const frameComponents = (cause: number) => (chain[cause] ?? []).map((f) => `frame:${f.name === null ? '' : `${f.name}@`}${f.path}`)
  const components = [`type:${type}`, `message:${message}`, ...frameComponents(0)]
  for (const [i, head] of (event.stack === null ? [] : causeHeads(event.stack)).entries()) {
    const causeType = errorType(head, head)
    components.push(`type:${causeType}`, `message:${normalizeMessage(head, causeType)}`, ...frameComponents(i + 1))
  }
  const top = chain[0]?.[0]
  const culprit = top === undefined ? null : top.name === null ? top.path : `${top.name} (${top.path})`
  return { components, title: message === '' ? type : `${type}: ${message}`, culprit }
}

/** The top GROUPING_FRAMES in-app frames of the error and of each of its causes (index = Frame.cause). */
function groupedFrames(event: GroupingInput, mapped: readonly (Frame | null)[]): { name: string | null; path: string }[][] {
  const chain: { name: string | null; path: string }[][] = []
  const add = (cause: number | undefined, name: string | null, path: string) => {
    const frames = chain[cause ?? 0] ??= []
    if (frames.length < GROUPING_FRAMES) frames.push({ name, path })
  }
  if (event.frames) {
    // A server SDK's names are the source's own, never minified.
    for (const f of event.frames) if (f.inApp && f.file !== null) add(f.cause, frameName(f.function, true), normalizePath(f.file))
    return chain
  }
  for (const [i, rawFrame] of (event.stack === null ? [] : parseStack(event.stack)).entries()) {
    // Its section full, a frame needs no in-app test: ingest groups every error, most of them one section deep.
    if ((chain[rawFrame.cause ?? 0]?.length ?? 0) === GROUPING_FRAMES) continue
    const map = mapped[i] ?? null
    const frame = map ?? rawFrame
    if (frame.file !== null && isInApp(frame.file)) add(rawFrame.cause, frameName(frame.function, map !== null), normalizePath(frame.file))
  }
  return chain
}

function groupHttp(event: GroupingInput) {
  const method = (event.method ?? '').toUpperCase()
  const template = urlTemplate(event.url ?? '')
  const status = event.statusCode === null ? 'network' : String(event.statusCode)
  return {
    components: [`method:${method}`, `url:${template}`, `status:${status}`],
    title: `${[method, template].filter(Boolean).join(' ')} → ${event.statusCode === null ? 'network error' : status}`,
    culprit: template === '' ? null : template,
  }
}

function groupRageClick(event: GroupingInput) {
  const selector = event.detail?.selector ?? ''
  const template = urlTemplate(event.url ?? '')
  return {
    components: ['event:RAGE_CLICK', `selector:${selector}`, `url:${template}`],
    title: `Rage clicks on "${event.detail?.text || selector}"`,
    culprit: [selector, template].filter(Boolean).join(' on ') || null,
  }
}

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text)

// ---- error type and message ----

/** What the SDK and the browsers put before an error's text: Chrome `Uncaught `, Firefox `uncaught exception: `, the SDK's rejections. */
const UNCAUGHT = /^(?:uncaught(?: \(in promise\))?(?: exception:)? |unhandled rejection: )/i
/** An error's name at the start of a text, as browsers print it (`TypeError: …`, `DOMException: …`, or the name alone). */
const NAMED = /^((?:[A-Za-z_$][\w$]*)?(?:Error|Exception))(?::\s|$)/
/**
 * The first line of a V8 stack names the error, whatever its name; Firefox and Safari stacks open with a frame (`fn@…`).
 * A server SDK's name may be qualified as its language writes it: `json.decoder.JSONDecodeError`, `Shop::Declined`,
 * `App\Exception\Declined`, `com.shop.Declined$Card`.
 */
const STACK_HEAD = /^([A-Za-z_$][\w$]*(?:(?:\.|::|\\)[A-Za-z_$][\w$]*)*)(?::\s|$)/

/**
 * The error's type: from the stack's first line (`TypeError: …`, V8 only), else from the message (`Uncaught
 * TypeError: …`, `Unhandled rejection: TypeError: …`, `TypeError: …`, names ending in Error or Exception), else `Error`.
 */
export function errorType(message: string | null, stack: string | null): string {
  const head = stack === null ? null : STACK_HEAD.exec(firstLine(stack))
  if (head?.[1]) return head[1]
  const named = NAMED.exec((message ?? '').replace(UNCAUGHT, ''))
  return named?.[1] ?? 'Error'
}

const firstLine = (text: string) => text.split(/\r?\n/, 1)[0] ?? ''

/** Longest first line the placeholders are applied to: bounds their cost on hostile input (they can be quadratic). */
const SCAN_MAX = 2000

/**
 * The placeholders, applied in this order (each on what the ones before left): emails, URLs (any `scheme://`),
 * IPv6 and IPv4 addresses, UUIDs, hex ids (7+ hex digits with a digit and a letter, or `0x…`), quoted strings
 * ('…', "…", `…`, not apostrophes inside words), then decimal numbers (not inside words or dotted versions).
 */
const PLACEHOLDERS: [RegExp, string | ((match: string) => string)][] = [
  // Tried only where a run of the local part's characters starts (the match would start there anyway): from every
  // position of a long run it cost 20 ms per 2000 characters.
  [/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '<email>'],
  [/\b[a-z][a-z\d+.-]*:\/\/[^\s'"`<>]+/gi, '<url>'],
  // IPv6 candidates (two or more colons and a decimal digit, so not C++'s a::b), checked by ipaddr.js so that times
  // like 12:30:45 stay numbers; before IPv4, which would take the tail of ::ffff:10.0.0.1.
  [/(?<![\w:.%])(?=[\w:.]*\d)(?:[\da-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[\da-f]{1,4})?(?:%[\w.-]+)?(?![\w:%]|\.\d)/gi,
    (m) => (ipaddr.IPv6.isValid(m) ? '<ip>' : m)],
  [/(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w]|\.\d)/g, '<ip>'],
  [/\b[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}\b/gi, '<uuid>'],
  [/\b(?:0x[\da-f]+|(?=[a-f]*\d)(?=\d*[a-f])[\da-f]{7,})\b/gi, '<hex>'],
  [/(?<!\w)(?:'[^'\n]*'|"[^"\n]*"|`[^`\n]*`)(?!\w)/g, '<str>'],
  [/(?<![\w.])-?\d+\.\d+(?!\d|\.\d)/g, '<float>'],
  [/(?<![\w.])-?\d+(?!\d|\.\d)/g, '<int>'],
]

/**
 * An error message as grouping sees it: without the `Uncaught `/`Unhandled rejection: ` prefix and the `Type: `
 * prefix (a name errorType recognizes, or `type` when given), first line only, the variable parts replaced by
 * placeholders (PLACEHOLDERS), at most MESSAGE_MAX characters.
 *
 * @example
 * normalizeMessage("Uncaught TypeError: Order 42 of ann@x.io has no 'items'") // 'Order <int> of <email> has no <str>'
 */
export function normalizeMessage(message: string, type?: string): string {
  let text = message.replace(UNCAUGHT, '')
  if (type !== undefined && (text === type || text.startsWith(`${type}: `))) text = text.slice(type.length + 1)
  else text = text.replace(NAMED, '')
  let line = firstLine(text.trimStart()).slice(0, SCAN_MAX)
  for (const [pattern, replacement] of PLACEHOLDERS) {
    // Two calls because String.replace's overloads take a string or a function, not their union.
    line = typeof replacement === 'string' ? line.replace(pattern, replacement) : line.replace(pattern, replacement)
  }
  return cut(line.trim(), MESSAGE_MAX)
}

// ---- frames ----

/** Library CDNs: their scripts are vendor code wherever the page loads them. */
export const CDN_HOSTS: readonly string[] = [
  'cdn.jsdelivr.net', 'fastly.jsdelivr.net', 'unpkg.com', 'cdnjs.cloudflare.com', 'ajax.googleapis.com', 'code.jquery.com',
  'esm.sh', 'cdn.skypack.dev', 'ga.jspm.io', 'stackpath.bootstrapcdn.com', 'maxcdn.bootstrapcdn.com', 'ajax.aspnetcdn.com',
]
/** Browser-extension code injected into the page (Safari masks extension URLs as webkit-masked-url://hidden/). */
const EXTENSION = /^(?:chrome|moz|safari|safari-web|ms-browser)-extension:|^webkit-masked-url:/i

/**
 * Where server runtimes keep library code: Node's own modules, Python's standard library and packages, Ruby's
 * standard library and gems. A server SDK may mark such a frame in_app (sentry-python 1.x marks every frame).
 */
const RUNTIME_LIBRARY = /^node:|^internal\/|[/\\](?:site-packages|dist-packages|gems)[/\\]|[/\\]lib[/\\](?:python\d[\d.]*|ruby[/\\]\d[\d.]*)[/\\]/i

/**
 * Whether a frame's file is the site's own code: not node_modules, a runtime's library (RUNTIME_LIBRARY), a library
 * CDN, a browser extension, or no file at all.
 */
export function isInApp(file: string | null): boolean {
  if (!file) return false
  if (/(?:^|[/\\])node_modules[/\\]/.test(file) || EXTENSION.test(file) || RUNTIME_LIBRARY.test(file)) return false
  const host = /^[a-z][a-z\d+.-]*:\/\/([^/?#:]*)/i.exec(file)?.[1]?.toLowerCase()
  return host === undefined || !CDN_HOSTS.includes(host)
}

/**
 * A frame's function name as grouping uses it: without V8's `async `/`new ` prefixes, Firefox's `async*`-like
 * `…*` prefixes and `/<` suffixes, and V8's ` [as alias]`. A raw (unmapped) frame's name is a minified one that
 * changes with every release when its own name is ≤ 2 characters (`u`, `Object.u`): then null, and the frame
 * counts by its path; receivers of ≤ 2 characters (`t.render`) are dropped. Mapped names are the original ones.
 */
export function frameName(name: string | null, mapped: boolean): string | null {
  if (name === null) return null
  const clean = withoutClosureMarks(withoutAlias(afterStar(name.replace(/^(?:async |new )+/, ''))))
  const parts = clean.split('.')
  const own = parts.pop() ?? ''
  if (own === '' || own === '<anonymous>') return null
  if (mapped) return clean
  return own.length <= 2 ? null : [...parts.filter((p) => p.length > 2), own].join('.')
}

/*
 * The name's parts are cut with indexOf and slices, not regexes: anchored at the end, `/ \[as [^\]]*\]$/` and
 * `/(?:\/?<)+$/` are tried from every position and took seconds on a long name of `<` or ` [as `.
 */

/** What follows Firefox's last `*` (`async*`, `promise callback*`). */
function afterStar(name: string): string {
  return name.slice(name.lastIndexOf('*') + 1)
}

/** Without V8's trailing ` [as alias]`. */
function withoutAlias(name: string): string {
  const as = name.lastIndexOf(' [as ')
  return as >= 0 && name.indexOf(']', as) === name.length - 1 ? name.slice(0, as) : name
}

/** Without Firefox's closure marks at the end: `/<`, `<`, and repeats of them (`fn/</<`). */
function withoutClosureMarks(name: string): string {
  let end = name.length
  while (end > 0 && name[end - 1] === '<') end -= end > 1 && name[end - 2] === '/' ? 2 : 1
  return name.slice(0, end)
}

/** A URL split where grouping needs it: scheme and host (none for a relative URL), path; query and fragment dropped. */
function splitUrl(url: string): { origin: string; path: string } {
  const m = /^((?:[a-z][a-z\d+.-]*:)?\/\/[^/?#]*)?([^?#]*)/i.exec(url.trim())
  return { origin: (m?.[1] ?? '').toLowerCase(), path: m?.[2] ?? '' }
}

/** A content hash at the end of a file name, after `-` or `.`, before `.js`, `.mjs`, `.cjs` or `.css` (or `.chunk.js`). */
const HASHED_NAME = /^(.+?)((?:\.chunk)?\.(?:[mc]?js|css))$/
/** A directory named by a release: a version (`v1.2.3`, `20`), a short SHA (7–8 hex with a digit), an md5 or a sha1. */
const RELEASE_DIR = /^(?:v?(?:\d+\.)*\d+|(?=[a-f]*\d)[\da-f]{7,8}|[\da-f]{32}|[\da-f]{40})$/i

/**
 * A script's path as grouping compares it across deploys: the URL without origin, query and fragment; without
 * directory segments named by a release (RELEASE_DIR); and without the content hash of its file name, which is
 * the shortest suffix after a `-` or `.` that is ≥ 8 characters of `[A-Za-z0-9_-]` when it has a digit, mixed
 * case, or is all capitals (esbuild's base32; about one in five has no digit).
 *
 * @example
 * normalizePath('https://shop.example/assets/index-DbQ2xY9p.js?v=2') // '/assets/index.js'
 */
export function normalizePath(file: string): string {
  const { path } = splitUrl(file.replace(/^blob:/i, ''))
  const segments = path.split('/').filter((s, i, all) => s !== '.' && (i === all.length - 1 || !RELEASE_DIR.test(s)))
  const last = segments.pop() ?? ''
  return [...segments, stripHash(last)].join('/')
}

function stripHash(name: string): string {
  const m = HASHED_NAME.exec(name)
  if (!m?.[1] || !m[2]) return name
  const [base, ext] = [m[1], m[2]]
  for (let i = base.length - 1; i > 0; i--) {
    if (base[i] !== '-' && base[i] !== '.') continue
    const hash = base.slice(i + 1)
    if (hash.length < 8) continue
    // The shortest long-enough suffix decides: a longer one would take part of the name (`my-Component-…`).
    const hashLike = /^[\w-]+$/.test(hash) && (/\d/.test(hash) || (/[a-z]/.test(hash) && /[A-Z]/.test(hash)) || /^[A-Z]+$/.test(hash))
    return hashLike ? base.slice(0, i) + ext : name
  }
  return name
}

/** A path segment that names a record, not a route: a number, a hex id (7+ with a digit), a UUID, or a hash-like token (16+ letters and digits). */
const ID_SEGMENT = /^(?:\d+|(?=[a-f]*\d)[\da-f]{7,}|[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}|(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{16,})$/i

/**
 * A request URL as an endpoint: origin kept (lower-cased; none for a relative URL), query and fragment dropped,
 * every ID_SEGMENT path segment replaced by `:id`.
 *
 * @example
 * urlTemplate('https://Shop.example/api/orders/123/items?x=1') // 'https://shop.example/api/orders/:id/items'
 */
export function urlTemplate(url: string): string {
  const { origin, path } = splitUrl(url)
  return origin + path.split('/').map((s) => (ID_SEGMENT.test(s) ? ':id' : s)).join('/')
}
