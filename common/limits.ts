/**
 * Every limit and default of Sessionwatch, each named once. Config, the TypeBox schemas (and so the
 * OpenAPI document), the CLI usage text, the services, the dashboard and the SDK read them from
 * here; test/limits.test.ts checks the numbers README.md and docs/api.md state against them.
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
/** Largest `limit` of a sessions list. */
export const MAX_LIMIT = 200
/** Largest `offset`: 2^53−1, the largest integer a JSON number (and JavaScript) holds exactly, so it is never rounded. */
export const MAX_OFFSET = 9_007_199_254_740_991
/** Longest `after` cursor: a list's `next` holds its last row's sort key (an id of at most MAX_SESSION_ID_LENGTH characters) in base64url. */
export const MAX_CURSOR_LENGTH = 600
/** Longest session id a path may carry: none is longer, so a longer one is a 404 without a lookup. */
export const MAX_SESSION_ID_LENGTH = 200
/** Longest chunk id an upload may carry, so the longest a chunk lookup can match. */
export const MAX_CHUNK_ID_LENGTH = 100

// --- Issues (listIssues, getIssue) ---

/** Longest issue id a path or `issue=` may carry: ids are 12 characters, so a longer one matches nothing. */
export const MAX_ISSUE_ID_LENGTH = 64
/** Visits getIssue returns with an issue. */
export const ISSUE_VISITS = 10
/** ERROR issues (the most recently seen) grouped again after a source map upload, so their bug keeps its issue. */
export const REGROUP_ISSUES = 1000
/** Days of the dashboard's occurrences-over-time chart of an issue. */
export const ISSUE_HISTOGRAM_DAYS = 30

// --- Ingest ---

/** Largest accepted ingest request body. Beacons are capped lower by browsers (64 KiB). */
export const MAX_BATCH_BYTES = 1_048_576 // 1 MiB
/** Events per ingest batch. */
export const MAX_EVENTS_PER_BATCH = 500
/** Recording chunks per ingest request: a few at most, since one chunk is already up to RECORDING_MAX_CHUNK_BYTES. */
export const MAX_CHUNKS_PER_BATCH = 10
/** Longest request duration stored: 31 days, far beyond any real request. */
export const MAX_DURATION_MS = 2_678_400_000 // 31 days
/** Longest landing page URL a batch may name (the `page` field). */
export const MAX_PAGE_URL_LENGTH = 8192
/** Longest User-Agent kept: longer ones are cut (ingest) or refused (import). */
export const MAX_USER_AGENT_LENGTH = 1024

/**
 * Longest stored value of each text field, in characters. Longer values are cut and end with
 * "…[truncated N chars]", so nothing is silently shortened and a batch is never refused for one long stack.
 */
export const TEXT_LIMITS: Readonly<Record<'url' | 'method' | 'message' | 'stack' | 'reqBody' | 'resBody' | 'fingerprint', number>> = {
  url: 4096,
  method: 16,
  message: 8192,
  stack: 32_768,
  reqBody: 65_536,
  resBody: 65_536,
  fingerprint: 256,
}

/**
 * Longest line of a stack read as a frame, in characters: a browser's frame is a function name and a script URL,
 * rarely over 300. Longer lines are kept in the text but are no frame, which bounds what grouping and source maps
 * do with one line.
 */
export const MAX_STACK_LINE_LENGTH = 2048

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
export const MAX_SEARCH_WORDS = 5
/**
 * A `q=` word or `url=` text that occurs in more of a project's text than this (rows of searchable text, about one
 * per batch that brought new text) is refused as too broad, unless another filter or a from/to range narrows the
 * search to at most SEARCH_TEXT_PROBE_MAX visits first: counting every visit that holds a common word costs
 * seconds, and the spec's `total` must be exact.
 */
export const SEARCH_TEXT_MATCH_LIMIT = 10_000
/** At most this many visits (narrowed by another filter or a range) are searched for text one by one. */
export const SEARCH_TEXT_PROBE_MAX = 5000
/** Characters of each message or URL that `q=` and `url=` search. */
export const SEARCH_INDEXED_CHARS = 1000

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
/** Default of IP_STORAGE: the server's IP storage for projects that do not choose their own. */
export const DEFAULT_IP_STORAGE = 'full'

// --- Screen recordings ---

/**
 * The SDK's recording cadence: a chunk leaves every RECORD_CHUNK_MS while the page changes, continuing the previous
 * one, and a full snapshot (which costs a heavy page a long task) is taken again at most every
 * DEFAULT_RECORD_CHECKOUT_MS (init option recordCheckoutMs).
 */
export const RECORD_CHUNK_MS = 5000
export const DEFAULT_RECORD_CHECKOUT_MS = 300_000
/** Default of RECORDING_MAX_CHUNK_BYTES: the largest compressed chunk kept (and the SDK's recordMaxChunkBytes). */
export const DEFAULT_MAX_CHUNK_BYTES = 524_288 // 512 KiB
/** Smallest RECORDING_MAX_CHUNK_BYTES accepted. */
export const MIN_CHUNK_BYTES_SETTING = 1024
/** Largest RECORDING_MAX_CHUNK_BYTES: a chunk whose base64, with 4 KiB for the rest of the body, fits one ingest request (765 KiB). */
export const MAX_CHUNK_BYTES_SETTING = 783_360 // (MAX_BATCH_BYTES − 4096) × 3/4
/** Default of RECORDING_MAX_SESSION_BYTES: compressed recording bytes kept per session. */
export const DEFAULT_MAX_SESSION_BYTES = 33_554_432 // 32 MiB
/**
 * Most bytes one recording chunk (or Sentry replay segment) may inflate to, and the most plain JSON a chunk may be.
 * The recorder benchmark's heavy page (19,200 elements, 200 changes every 50 ms) records 5.4–6.0 MiB of JSON per
 * 5-second chunk (440 KiB gzip-compressed): this leaves it 2.7 times that. Beyond it a compressed chunk is a
 * decompression bomb (413).
 */
export const MAX_CHUNK_JSON_BYTES = 16_777_216 // 16 MiB

// --- Compressed request data (recording chunks, Sentry bodies and replay segments) ---

/**
 * Most bytes all the inflations of one request may give together (its chunks, its Sentry body and replay items):
 * two of the largest chunks. Beyond it the whole request is refused (413) and nothing of it is stored.
 */
export const MAX_REQUEST_INFLATED_BYTES = 33_554_432 // 32 MiB
/**
 * Most times its compressed size any data may inflate to (past INFLATE_RATIO_FROM_BYTES). Real rrweb JSON
 * compresses 7–13 times with gzip (the recorder benchmark's pages: article 11.8, heavy 12.1–13.2), Sentry events
 * less; a DEFLATE bomb reaches 1032 times, brotli's far more.
 */
export const MAX_INFLATE_RATIO = 100
/** Output below this is never refused for its ratio: small data (an rrweb Meta event, a tiny envelope) says little by its ratio. */
export const INFLATE_RATIO_FROM_BYTES = 1_048_576 // 1 MiB
/**
 * Most bytes of a compressed Sentry envelope inflated to read its header line (a tunnel's `dsn`) before the sender
 * is authenticated: Sentry's headers are a few hundred bytes.
 */
export const SENTRY_HEADER_PEEK_BYTES = 65_536 // 64 KiB

// --- Fair use of ingest (rate limits, quotas, the writer's queues) ---

/**
 * Default of INGEST_RATE_LIMIT: ingest requests per second each project may send to one service process (its ingest
 * key and its DSN together), with a burst of INGEST_BURST_SECONDS times that. The SDK sends at most a batch and a
 * recording chunk every 5 s per open tab (0.4 requests/s), so 1000/s is ~2,500 tabs recording at once, every second:
 * beyond a busy site's peak, and beyond what one process stores (docs/scaling.md), so only a runaway or hostile
 * sender meets it.
 */
export const DEFAULT_INGEST_RATE_LIMIT = 1000
/** Largest INGEST_RATE_LIMIT, and largest rate limit of a project. */
export const MAX_INGEST_RATE_LIMIT = 100_000
/** Seconds of its rate a project may send at once: a burst of twice the rate, then the rate. */
export const INGEST_BURST_SECONDS = 2
/** Largest daily event quota of a project (a trillion: no real project's day). */
export const MAX_DAILY_EVENT_QUOTA = 1_000_000_000_000
/** Batches waiting for the writer at most, all projects together: beyond it ingest answers 503, so memory stays bounded. */
export const WRITER_MAX_QUEUED = 5000
/**
 * Batches of one project waiting for the writer at most: beyond it that project's ingest answers 503 while the others'
 * still queue, so a flood fills its own queue and not everyone's.
 */
export const WRITER_MAX_QUEUED_PER_PROJECT = 1000
/**
 * Events of one project in a group commit at most while another project waits too: such a group commits in a tenth
 * of a full one's time (10,000 events), so the other's batches are not held behind a flood.
 */
export const WRITER_SHARED_GROUP_EVENTS = 1000

// --- Sentry SDK ingest (envelopes) ---

/**
 * A request or resource slower than this is a SLOW_REQUEST: the SDK's default `slowThresholdMs`, and the rule for
 * a Sentry replay's request timings.
 */
export const DEFAULT_SLOW_THRESHOLD_MS = 1000

/** Largest envelope request body as sent (compressed or not): Bugsink's MAX_ENVELOPE_COMPRESSED_SIZE is 20 MiB. */
export const SENTRY_MAX_BODY_BYTES = 10_485_760 // 10 MiB
/** Largest envelope once its Content-Encoding is inflated. */
export const SENTRY_MAX_ENVELOPE_BYTES = 20_971_520 // 20 MiB
/** Largest event, feedback or replay_event item: Relay's and Bugsink's limit. */
export const SENTRY_MAX_EVENT_BYTES = 1_048_576 // 1 MiB
/** An error that names no replay joins its user's, else its IP and User-Agent's, visit active this recently. */
export const SENTRY_VISIT_IDLE_MS = 1_800_000 // 30 min
/** An anonymous error's visit (by IP address and User-Agent) is looked for among this many most recently active visits. */
export const SENTRY_VISIT_SCAN = 5000
/** Seconds a Sentry SDK is told to wait (Retry-After) when the service cannot store now: busy, database down, disk full. */
export const SENTRY_RETRY_SECONDS = 60

// --- Source maps ---

/**
 * Largest source map accepted (uncompressed), by the upload endpoint and the CLI alike. Maps of a
 * large app with sourcesContent reach 100 MB; the self-hosted complaints of the peers are 413s on
 * maps over 16–20 MB, so the bound sits well above any real map.
 */
export const MAX_SOURCEMAP_BYTES = 268_435_456 // 256 MiB
/**
 * Source map uploads over HTTP running at once per process. Each is streamed to a temporary file as it arrives,
 * but checking a map parses it whole, which holds a few times its size in memory for a moment; one more upload
 * answers 503 with Retry-After (UNAVAILABLE_RETRY_SECONDS) before any of its body is read.
 */
export const SOURCEMAP_MAX_CONCURRENT_UPLOADS = 2
/** Default of SOURCEMAP_CACHE_BYTES: the estimated memory of the parsed maps a process keeps for reads. */
export const DEFAULT_SOURCEMAP_CACHE_BYTES = 268_435_456 // 256 MiB
/**
 * How long a process trusts what it looked up about a script URL (its map, or that it has none).
 * An upload or delete in the same process forgets at once; other processes see it within this time.
 */
export const SOURCEMAP_LOOKUP_TTL_MS = 10_000 // 10 s
/** Script URLs (and debug IDs) whose lookup a process remembers at most. */
export const SOURCEMAP_LOOKUP_ENTRIES = 10_000
/**
 * Resolved frames remembered per parsed map: the frames of a page's events repeat, and each is worked
 * out once (its function name and context) rather than once per event.
 */
export const SOURCEMAP_FRAME_MEMO = 1000
/**
 * Lines above a frame searched for the header of the function around it: longer functions than this keep
 * the name the browser printed, and a frame in top-level code stops searching here.
 */
export const SOURCE_FUNCTION_SCAN_LINES = 2000
/** Lines of original source shown before and after a mapped frame's line. */
export const SOURCE_CONTEXT_LINES = 5
/** Longest line of source context, in characters: a minified vendor file would otherwise put a whole bundle in each frame. */
export const MAX_SOURCE_CONTEXT_LINE_LENGTH = 500
/** Longest release name of a source map. */
export const MAX_RELEASE_LENGTH = 200

// --- Projects and retention ---

/** Days a new project keeps sessions when no retention is given. */
export const DEFAULT_RETENTION_DAYS = 30
/** Shortest retention a project may have. */
export const MIN_RETENTION_DAYS = 1
/** Longest retention a project may have: ten years. */
export const MAX_RETENTION_DAYS = 3650
/** Default of RETENTION_SWEEP_SECONDS: seconds between in-process retention sweeps. */
export const DEFAULT_SWEEP_SECONDS = 300
/** Sessions deleted per transaction, by a retention sweep or an erasure: short transactions keep ingest and reads flowing meanwhile. */
export const SWEEP_BATCH = 500
/** Longest project name. */
export const MAX_PROJECT_NAME_LENGTH = 200

// --- Dashboard ---

/** Sessions per dashboard page: the read API's default, so the dashboard pages as a script does. */
export const DASHBOARD_PAGE_SIZE = DEFAULT_LIMIT
/** Characters of an error or report message (and URL) a row of the dashboard's sessions list carries: a line's worth. */
export const MAX_HEADLINE_LENGTH = 300
/** The replay starts this long after an event the timeline jumps to, so what the event did (a click's effect, an error's page) is on screen. */
export const REPLAY_JUMP_AFTER_MS = 500
/** Failed sign-ins from one address (or one signed-in browser) checked without delay before each next one has to wait. */
export const SIGN_IN_FREE_FAILURES = 5
/** The first wait after SIGN_IN_FREE_FAILURES failures, doubled with each further failure up to SIGN_IN_MAX_DELAY_MS. */
export const SIGN_IN_FIRST_DELAY_MS = 1000 // 1 s
/**
 * The longest wait between sign-in attempts from one address: short, so someone failing on purpose from the
 * admin's address (or from everyone's, behind a proxy without TRUST_PROXY) delays the admin at most this long.
 */
export const SIGN_IN_MAX_DELAY_MS = 60_000 // 1 minute
/** How long failed sign-ins are remembered after an address's last attempt: 15 minutes. */
export const SIGN_IN_WINDOW_MS = 900_000 // 15 minutes
/** Addresses whose failures are remembered at most, so a flood of addresses cannot grow memory without limit. */
export const SIGN_IN_MAX_ADDRESSES = 10_000
/**
 * Password checks (scrypt, ~50 ms on one of libuv's 4 worker threads, which also inflate recordings) run at once
 * per process; a sign-in beyond them answers 429 at once rather than queue.
 */
export const SIGN_IN_MAX_CONCURRENT_CHECKS = 2
/** How long a browser that signed in is known by its device cookie, its attempts counted apart from its address: a year. */
export const SIGN_IN_DEVICE_SECONDS = 31_536_000 // 365 days
/** Retry-After of a sign-in refused because SIGN_IN_MAX_CONCURRENT_CHECKS are running. */
export const SIGN_IN_BUSY_RETRY_SECONDS = 1
/** Shortest ADMIN_PASSWORD accepted. */
export const MIN_ADMIN_PASSWORD_LENGTH = 8

// --- Webhooks (alerts on a new issue and on a regression) ---

/** Webhooks a project may have. */
export const MAX_WEBHOOKS_PER_PROJECT = 10
/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048
/**
 * Alerts (new issues, regressions) of one project within WEBHOOK_RATE_WINDOW_MS; beyond them an alert's deliveries
 * are stored as `dropped` with the reason. Each alert goes to every webhook of the project, so all of them get the
 * same first alerts of a burst; 20 in 10 minutes is about what a chat channel can take before alerts stop being
 * read (Slack allows about one message a second).
 */
export const WEBHOOK_RATE_LIMIT = 20
/** The window of WEBHOOK_RATE_LIMIT: 10 minutes. */
export const WEBHOOK_RATE_WINDOW_MS = 600_000
/** How long a receiver has to answer a delivery in full (the 10 s that Highlight's receivers are held to). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** Bytes of a receiver's answer read at most: enough for WEBHOOK_ERROR_MAX_CHARS characters of any text. */
export const WEBHOOK_RESPONSE_MAX_BYTES = 1024
/**
 * Characters of a failed answer's body (or of the error) kept for the delivery log: enough for a status line or a
 * chat service's error (`invalid_token`, Discord's JSON error), not for a page a receiver answers with, which may
 * echo the alert's visitor text or hold the receiver's own data and would live as long as the log.
 */
export const WEBHOOK_ERROR_MAX_CHARS = 256
/** Longest `content` of a delivery: Discord refuses a message over 2000 characters. */
export const WEBHOOK_CHAT_MAX_CHARS = 2000
/** Characters of an issue's title (and of its culprit) in the chat message; the `issue` object has them whole. */
export const WEBHOOK_CHAT_TITLE_CHARS = 300
/** How often each service process looks for deliveries that are due: an alert arrives within this much of its issue. */
export const WEBHOOK_POLL_MS = 5000
/** Deliveries one process claims and sends at once. */
export const WEBHOOK_BATCH = 10
/** How long a claimed delivery is another process's: past it (the claimer died), any process sends it again. */
export const WEBHOOK_LEASE_MS = 60_000
/** Wait before the first retry of a failed delivery; each further retry waits twice as long as the one before. */
export const WEBHOOK_BACKOFF_BASE_MS = 10_000
/** Longest wait between two retries: one hour. */
export const WEBHOOK_BACKOFF_MAX_MS = 3_600_000
/** How long a delivery is retried after it was queued: 24 hours, then it is `failed`. */
export const WEBHOOK_RETRY_FOR_MS = 86_400_000
/** Deliveries the dashboard's delivery log shows: the latest. */
export const WEBHOOK_LOG_SIZE = 50

// --- Memory a process keeps between requests ---
/**
 * Each of these caches is bounded by its entries' estimated heap bytes (src/util/memory.ts), not by their count
 * or key length: under error-heavy ingest, caches bounded by key length alone held ~55 MB of live heap, and V8 grows
 * its heap to a few times what is live (issue 16, docs/performance.md).
 */
/** Groupings of unmapped errors lately computed (src/issues/grouping.ts). */
export const GROUPING_CACHE_BYTES = 4_194_304 // 4 MiB
/** Stack traces lately parsed into frames (src/issues/stack.ts). */
export const STACK_CACHE_BYTES = 4_194_304 // 4 MiB
/** Hashes of the texts recent visits have indexed for search (src/visits/search.ts). */
export const INDEXED_TEXTS_CACHE_BYTES = 4_194_304 // 4 MiB

// --- Service configuration (defaults of the environment variables) ---

/** Default of DATABASE_URL: an SQLite file, relative to the working directory. */
export const DEFAULT_SQLITE_FILE = './data/sessionwatch.db'
/** Default of DATABASE_POOL_SIZE: PostgreSQL connections per process. */
export const DEFAULT_POOL_SIZE = 10
/** Smallest DATABASE_POOL_SIZE. */
export const MIN_POOL_SIZE = 1
/** Largest DATABASE_POOL_SIZE. */
export const MAX_POOL_SIZE = 1000
/**
 * Default of DATABASE_WRITERS: group commits a process runs at once on PostgreSQL, each on one of its pooled
 * connections (never more than DATABASE_POOL_SIZE). Two keep both this machine's cores busy (docs/performance.md).
 */
export const DEFAULT_DATABASE_WRITERS = 2
/** Largest DATABASE_WRITERS. */
export const MAX_DATABASE_WRITERS = 32
/** Default of DATABASE_STATEMENT_TIMEOUT_MS: 30 s bounds any PostgreSQL query. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000
/**
 * Default of DATABASE_PARALLEL_WORKERS, PostgreSQL's max_parallel_workers_per_gather on the service's connections:
 * none. Its statements are index walks and probes that stop after a page; a parallel plan splits a scan the serial
 * plan would not make at all (docs/scaling.md, "Parallel query").
 */
export const DEFAULT_PARALLEL_WORKERS = 0
/** Largest DATABASE_PARALLEL_WORKERS: PostgreSQL's own bound of max_parallel_workers_per_gather. */
export const MAX_PARALLEL_WORKERS = 1024
/**
 * Default of REQUEST_TIMEOUT_MS: a request's head and body must have arrived in full this long after it started,
 * or it is answered 408 and nothing of it is stored. A 1 MiB ingest batch arrives in 30 s at 280 kbit/s.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** Default of HEADERS_TIMEOUT_MS: a request's line and headers (at most 16 KiB) must have arrived this long after it started. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
/**
 * How often a process looks for requests past their deadline (Node's connectionsCheckingInterval, 30 s by default,
 * which would let a 30-second deadline run to a minute); a quarter of a shorter deadline.
 */
export const REQUEST_TIMEOUT_CHECK_MS = 1000
/** Default of PORT. */
export const DEFAULT_PORT = 8080
/** Default of HOST: every interface. */
export const DEFAULT_HOST = '0.0.0.0'
/** Default of LOG_LEVEL. */
export const DEFAULT_LOG_LEVEL = 'info'
/**
 * HEAP_GROWTH_PERCENT's bounds: how far the JavaScript heap may grow past what the last full collection left live
 * before the next (V8's `--heap-growing-percent`). Unset, V8 chooses, up to 300% under a high allocation rate.
 */
export const MIN_HEAP_GROWTH_PERCENT = 10
export const MAX_HEAP_GROWTH_PERCENT = 300

// --- Errors ---

/** Retry-After of a 503 for an unreachable database, a shutdown or a full ingest queue: such outages pass quickly. */
export const UNAVAILABLE_RETRY_SECONDS = 5
/** Retry-After of a 503 storage_full: a full disk takes an operator to mend, so clients wait longer between tries. */
export const STORAGE_FULL_RETRY_SECONDS = 30

/**
 * A byte count as the docs and messages write it: whole MiB or KiB when it is one, else bytes.
 *
 * @example
 * byteSize(MAX_BATCH_BYTES) // "1 MiB"
 */
export function byteSize(bytes: number): string {
  const kib = 1024
  const mib = kib * kib
  if (bytes >= mib && bytes % mib === 0) return `${bytes / mib} MiB`
  if (bytes >= kib && bytes % kib === 0) return `${bytes / kib} KiB`
  return `${bytes} bytes`
}

/**
 * TEXT_LIMITS as the docs write them, fields of equal limit joined.
 *
 * @example
 * textLimitsProse() // "url 4096, method 16, message 8192, stack 32768, reqBody and resBody 65536"
 */
export function textLimitsProse(): string {
  const byLimit = new Map<number, string[]>()
  for (const [field, limit] of Object.entries(TEXT_LIMITS)) byLimit.set(limit, [...(byLimit.get(limit) ?? []), field])
  return [...byLimit].map(([limit, fields]) => `${fields.join(' and ')} ${limit}`).join(', ')
}
