import { maskCards } from './text.ts'

/*
 * Secrets never stored: the one list of secret names and the one pass that masks them, shared by the browser SDK
 * (before an event leaves the page) and the service (again at ingest, for our SDK and Sentry's alike, for clients
 * that did not). Pure and DOM-free like the rest of common/.
 *
 * The list starts from the Sentry SDKs' and Relay's defaults (sentry-python's DEFAULT_DENYLIST, Relay's
 * `@password` key pattern and its Bearer rule) and adds the names tokens travel under in URLs and JSON.
 */

/** What a masked value becomes. */
const MASK = '***'

/*
 * Names are compared lower-cased without `-`, `_`, `.` and spaces, so `api_key`, `api-key`, `x-api-key` and `apiKey`
 * are one name, as `set-cookie` and `Set_Cookie` are.
 */
/** A name containing one of these is secret: `password`, `newPassword`, `access_token`, `X-CSRF-Token`, `PHPSESSID`. */
const SECRET_PARTS = [
  'password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'accesskey', 'privatekey', 'authorization',
  'credential', 'cardnumber', 'sessionid', 'sessid', 'jwt', 'cookie', 'csrf', 'xsrf',
]
/** Names secret only as a whole (`pin`, but not `shipping`; `session`, but not `sessionCount`). */
const SECRET_NAMES = [
  'pass', 'pin', 'otp', 'ssn', 'auth', 'cvv', 'cvc', 'cvv2', 'twofactor', 'session', 'refresh', 'connectsid',
  'usersession', 'aiohttpsession', 'symfony',
]
/**
 * Names secret in a query string, a fragment or a form only: an OAuth authorization `code`, a signed URL's `sig`,
 * `signature` or Google's `key`. In JSON these are most often something else (an error's `code`), so they stay.
 */
const QUERY_NAMES = ['code', 'sig', 'signature', 'key']

const normalized = (name: string): string => name.toLowerCase().replace(/[-_.\s]/g, '')

/**
 * Whether a JSON key, a form field or a query parameter names a secret: by the list above (QUERY_NAMES only when
 * `inQuery`), or when it is one of `extra` (a project's or a page's own maskFields, compared without regard to case).
 */
export function isSensitiveKey(key: string, extra: readonly string[] = [], inQuery = false): boolean {
  let name = key
  // A form's or a URL's encoded name (user%5Bpassword%5D) is tested as the page wrote it.
  if (name.includes('%')) try { name = decodeURIComponent(name) } catch { /* tested as sent */ }
  const k = normalized(name)
  return SECRET_NAMES.includes(k) || SECRET_PARTS.some((part) => k.includes(part)) || (inQuery && QUERY_NAMES.includes(k))
    || extra.some((field) => field.toLowerCase() === name.toLowerCase())
}

/*
 * The pattern pass over text. Every quantifier is bounded and no two adjacent parts can match the same character, so
 * each position is tried a bounded number of times: the time is linear in the text, whatever a visitor sends. A name
 * and its separator are found first (PAIR); the value after it is read (VALUE, LINE, TOKEN, sticky) only when the
 * name is secret, so no value is scanned twice.
 */
const KEY = String.raw`[\w$@%.\-\[\]]{1,64}`
const PAIR = new RegExp([
  // 1: `Bearer …` / `Basic …` credentials anywhere (an Authorization header in a message or a log line).
  String.raw`\b(bearer|basic)[ \t]{1,8}`,
  // 2, 3: a quoted name, `:` or `=` (JSON and JavaScript objects, also cut ones that no longer parse).
  String.raw`(["'])(${KEY})\2[ \t]{0,8}[:=][ \t]{0,8}`,
  // 4, 5: name=value in a query string, a fragment, a form or a log line.
  String.raw`(^|[?&#;\s,({"'])(${KEY})[ \t]{0,8}=[ \t]{0,8}`,
  // 6: name: "value", a quoted value only (GraphQL inline arguments, JavaScript objects).
  String.raw`(?:^|[^\w$@%.\-\[\]])(${KEY})[ \t]{0,8}:[ \t]{0,8}(?=["'])`,
  // 7: a header or YAML line, `Name: value`: the rest of the line is its value.
  String.raw`^[ \t]{0,8}(${KEY})[ \t]{0,8}:[ \t]{0,8}`,
  // 8: the password of a URL's user information (https://user:password@host).
  String.raw`(\/\/[^/\s:@]{1,256}:)(?=[^/\s@]{1,256}@)`,
].join('|'), 'gim')
/** A credential's token: base64, base64url, a JWT, a hex or opaque string. */
const TOKEN = /[^\s"',;]{1,4096}/y
/** A value: a credential, a quoted string (closed or cut), or a bare word up to the next delimiter. */
const VALUE = /(?:bearer|basic)[ \t]{1,8}[^\s"',;]{1,4096}|"(?:[^"\\\r\n]|\\.){0,4096}"?|'(?:[^'\\\r\n]|\\.){0,4096}'?|[^\s&#;,"'<>(){}[\]]{1,4096}/iy
const LINE = /[^\r\n]{1,4096}/y
const USERINFO = /[^/\s@]{1,256}/y
/** `Basic` takes only what looks like base64 credentials (not `basic information`): whole quads, not lower-case alone. */
const BASIC = /^[A-Za-z0-9+/]{4,}={0,2}$/

/**
 * The masked form of a value: quotes and a credential's scheme kept, so the text still reads; the value of a quoted
 * name (`"pin": 1234`) quoted like it, so a cut JSON body stays as close to JSON as it was.
 */
function masked(value: string, nameQuote: string | undefined): string {
  const first = value.charAt(0)
  const quote = first === '"' || first === "'" ? first : nameQuote
  if (quote !== undefined) return `${quote}${MASK}${quote}`
  const scheme = /^(bearer|basic)[ \t]+/i.exec(value)
  return scheme ? `${scheme[0]}${MASK}` : MASK
}

/** Reads `re` (sticky) at `at`; the matched text or ''. */
function readAt(re: RegExp, text: string, at: number): string {
  re.lastIndex = at
  return re.exec(text)?.[0] ?? ''
}

/** Masks secret pairs and credentials in text by pattern, then card numbers. */
function scrubText(text: string, extra: readonly string[]): string {
  let out = ''
  let last = 0
  PAIR.lastIndex = 0
  for (let m = PAIR.exec(text); m !== null; m = PAIR.exec(text)) {
    const end = m.index + m[0].length
    let value = ''
    if (m[1] !== undefined) {
      value = readAt(TOKEN, text, end)
      if (m[1].toLowerCase() === 'basic' && !(BASIC.test(value) && value.length % 4 === 0 && value !== value.toLowerCase())) value = ''
    } else if (m[8] !== undefined) {
      value = readAt(USERINFO, text, end)
    } else {
      const key = m[3] ?? m[5] ?? m[6] ?? m[7] ?? ''
      const inQuery = m[5] !== undefined && (m[4] === '' || '?&#'.includes(m[4] ?? ''))
      if (isSensitiveKey(key, extra, inQuery)) value = readAt(m[7] === undefined ? VALUE : LINE, text, end)
    }
    if (value === '') {
      PAIR.lastIndex = end
      continue
    }
    out += text.slice(last, end) + (m[1] === undefined && m[8] === undefined ? masked(value, m[2]) : MASK)
    last = PAIR.lastIndex = end + value.length
  }
  return maskCards(last === 0 ? text : out + text.slice(last))
}

/** JSON with secret keys masked and every string scrubbed as text; `changed` says whether anything was. */
function scrubJson(value: unknown, extra: readonly string[]): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    const text = scrubText(value, extra)
    return { value: text, changed: text !== value }
  }
  if (value === null || typeof value !== 'object') return { value, changed: false }
  let changed = false
  const each = (key: string | null, inner: unknown): unknown => {
    if (key !== null && isSensitiveKey(key, extra)) {
      changed ||= inner !== MASK
      return MASK
    }
    const done = scrubJson(inner, extra)
    changed ||= done.changed
    return done.value
  }
  const out = Array.isArray(value)
    ? value.map((item) => each(null, item))
    : Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, each(key, inner)]))
  return { value: out, changed }
}

/**
 * The one pass every text a visitor sends goes through before it is kept (a URL, a message, a stack, a body, a
 * fingerprint): JSON's secret keys at any depth, and in any text (JSON's strings included) `name=value` pairs of
 * query strings, fragments and forms, `"name": value` pairs, GraphQL's `name: "value"` arguments, `Name: value`
 * header lines, `Bearer`/`Basic` credentials and a URL's password (`//user:password@`), masked as `***`; then payment card numbers (maskCards). `extra`
 * adds the project's or the page's own field names. Unchanged text comes back as is; running it twice changes
 * nothing.
 *
 * @example
 * scrub('https://shop.example/cb#access_token=abc&state=1') // 'https://shop.example/cb#access_token=***&state=1'
 */
export function scrub(text: string, extra: readonly string[] = []): string {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const done = scrubJson(JSON.parse(trimmed), extra)
      return done.changed ? JSON.stringify(done.value) : text
    } catch {
      // Not JSON (a cut body), or nested past the stack: the pattern pass masks its pairs all the same.
    }
  }
  return scrubText(text, extra)
}
