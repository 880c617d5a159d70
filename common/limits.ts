/**
 * The limits and defaults that cross the server/browser line: the SDK or the dashboard reads each of them, and so
 * do the server's schemas. Every other limit lives with its module (`src/<module>/limits.ts`, the settings' in
 * src/settings.ts); test/unit/limits.test.ts checks the numbers README.md and docs/api.md state against all of them.
 *
 * Pure data shared by server and browser code: no imports, nothing of Node or the DOM.
 *
 * @example
 * import { MAX_LIMIT } from '../common/limits.ts'
 * Type.Integer({ maximum: MAX_LIMIT, description: `1 to ${MAX_LIMIT}` })
 */

// Values are plain literals, not expressions (test/limits.test.ts checks the arithmetic): esbuild drops an
// unused constant from the browser bundles only when its value is a literal.

// --- Reading sessions (listSessions, getSession, the recording routes) ---

/** Sessions per page when `limit` is not given. */
export const DEFAULT_LIMIT = 50

// --- Who the visitor is (Sessionwatch.identify, setTags, init's release and environment) ---

/** Longest user id identify() may set. */
export const MAX_USER_ID_LENGTH = 256
/** Most traits of a user, and most tags of a visit. */
export const MAX_TRAITS = 20
export const MAX_TAGS = 20
/** Longest trait or tag key; keys are letters, digits and `_ . : -`. */
export const MAX_META_KEY_LENGTH = 64
/** Longest trait or tag value (a string; trait numbers and booleans are kept as they are). */
export const MAX_META_VALUE_LENGTH = 256
/** Longest environment name (release names share MAX_RELEASE_LENGTH with source maps). */
export const MAX_ENVIRONMENT_LENGTH = 64

/** Shortest `q=` word and `url=` text: the trigram indexes find nothing shorter than three characters. */
export const MIN_SEARCH_LENGTH = 3
/** Longest `q=` or `url=` value, and most words or phrases in `q=`. */
export const MAX_SEARCH_LENGTH = 200

// --- Privacy ---

/** Events the SDK holds while waiting for consent (init({ consent: false })); beyond it the oldest are dropped. */
export const CONSENT_QUEUE_MAX = 200
/** Most extra masked field names (maskFields) a project or the SDK may add. */
export const MAX_MASK_FIELDS = 50
/** Longest masked field name. */
export const MAX_MASK_FIELD_LENGTH = 64
/**
 * How much of a visitor's IP address a project stores: `full`, `truncated` (IPv4 to its /24, IPv6 to its /48, the
 * part that says roughly where, not who) or `none`. The country is looked up from the full address first.
 */
export const IP_STORAGE_MODES = ['full', 'truncated', 'none'] as const

// --- Screen recordings ---

/**
 * The SDK's recording cadence: a chunk leaves every RECORD_CHUNK_MS while the page changes, continuing the previous
 * one, and a full snapshot (which costs a heavy page a long task) is taken again at most every
 * DEFAULT_RECORD_CHECKOUT_MS (init option recordCheckoutMs).
 */
export const RECORD_CHUNK_MS = 5000
export const DEFAULT_RECORD_CHECKOUT_MS = 300_000
/**
 * `record: 'onError'`: the recorder keeps at least the last DEFAULT_RECORD_BUFFER_MS of the page in memory (init option
 * recordBufferMs), at most RECORD_BUFFER_MAX_BYTES of compressed chunks; the same bound holds what a page hands to the
 * visit's next page in sessionStorage (4 MiB there is up to 8 MiB of the origin's quota, 10 MiB in Chromium; where it is
 * smaller, the oldest held chunks that fit are carried). 4 MiB, not 1: at 1 MiB the bench's heavy page (150 KB/s
 * compressed) needed a fresh snapshot every 3–4 s to stay within it, 1.14× the script time of record: true.
 */
export const DEFAULT_RECORD_BUFFER_MS = 60_000
export const RECORD_BUFFER_MAX_BYTES = 4_194_304 // 4 MiB
/** Default of RECORDING_MAX_CHUNK_BYTES: the largest compressed chunk kept (and the SDK's recordMaxChunkBytes). */
export const DEFAULT_MAX_CHUNK_BYTES = 524_288 // 512 KiB

// --- Frustration signals (the SDK's RAGE_CLICK and DEAD_CLICK; docs/sdk.md compares them with other tools') ---

/** A rage click: at least DEFAULT_RAGE_CLICK_COUNT clicks on one element within DEFAULT_RAGE_CLICK_WINDOW_MS (init option rageClicks). */
export const DEFAULT_RAGE_CLICK_COUNT = 3
export const DEFAULT_RAGE_CLICK_WINDOW_MS = 1000
/** A dead click: no DOM change, navigation or request within this after the click (init option deadClicks). */
export const DEFAULT_DEAD_CLICK_WINDOW_MS = 2500
/** RAGE_CLICK and DEAD_CLICK events one page view sends at most: a page clicked in a loop must not flood its visit. */
export const MAX_CLICK_SIGNALS_PER_PAGE = 50
/**
 * Longest `selector` (RAGE_CLICK, DEAD_CLICK) and `element` (WEB_VITAL) the SDK sends: the service's TEXT_LIMITS for
 * them, here as literals so that the SDK's bundle carries two numbers, not the service's table.
 */
export const MAX_SELECTOR_LENGTH = 256
export const MAX_ELEMENT_LENGTH = 256
/** Most clicks one RAGE_CLICK may count: no hand clicks more within its window. */
export const MAX_CLICK_COUNT = 10_000

// --- Fair use of ingest (rate limits, quotas, the writer's queues) ---

/** Largest INGEST_RATE_LIMIT, and largest rate limit of a project. */
export const MAX_INGEST_RATE_LIMIT = 100_000
/** Seconds of its rate a project may send at once: a burst of twice the rate, then the rate. */
export const INGEST_BURST_SECONDS = 2
/** Largest daily event quota of a project (a trillion: no real project's day). */
export const MAX_DAILY_EVENT_QUOTA = 1_000_000_000_000

// --- Sentry SDK ingest (envelopes) ---

/**
 * A request or resource slower than this is a SLOW_REQUEST: the SDK's default `slowThresholdMs`, and the rule for
 * a Sentry replay's request timings.
 */
export const DEFAULT_SLOW_THRESHOLD_MS = 1000

// --- Source maps ---

/** Longest release name of a source map. */
export const MAX_RELEASE_LENGTH = 200

// --- Projects and retention ---

/** Days a new project keeps sessions when no retention is given. */
export const DEFAULT_RETENTION_DAYS = 30
/** Shortest retention a project may have. */
export const MIN_RETENTION_DAYS = 1
/** Longest retention a project may have: ten years. */
export const MAX_RETENTION_DAYS = 3650
/** Longest project name. */
export const MAX_PROJECT_NAME_LENGTH = 200

// --- Dashboard ---

/** Sessions per dashboard page: the read API's default, so the dashboard pages as a script does. */
export const DASHBOARD_PAGE_SIZE = DEFAULT_LIMIT
/** The replay starts this long after an event the timeline jumps to, so what the event did (a click's effect, an error's page) is on screen. */
export const REPLAY_JUMP_AFTER_MS = 500

// --- Webhooks (alerts on a new issue and on a regression) ---

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048
/** Deliveries the dashboard's delivery log shows: the latest. */
export const WEBHOOK_LOG_SIZE = 50

/** The shortest password a person may choose, and ADMIN_PASSWORD: the dashboard's form and the server check it. */
export const MIN_PASSWORD_LENGTH = 8

// --- Errors ---
