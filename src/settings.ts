/** Every setting's default and bounds: config.ts parses with them, the CLI prints them, the README states them. */

/** Default of IP_STORAGE: the server's IP storage for projects that do not choose their own. */
export const DEFAULT_IP_STORAGE = 'full'
/** Smallest RECORDING_MAX_CHUNK_BYTES accepted. */
export const MIN_CHUNK_BYTES_SETTING = 1024
/** Largest RECORDING_MAX_CHUNK_BYTES: a chunk whose base64, with 4 KiB for the rest of the body, fits one ingest request (765 KiB). */
export const MAX_CHUNK_BYTES_SETTING = 783_360 // (MAX_BATCH_BYTES − 4096) × 3/4
/** Default of RECORDING_MAX_SESSION_BYTES: compressed recording bytes kept per session. */
export const DEFAULT_MAX_SESSION_BYTES = 33_554_432 // 32 MiB
/**
 * Default of INGEST_RATE_LIMIT: ingest requests per second each project may send to one service process (its ingest
 * key and its DSN together), with a burst of INGEST_BURST_SECONDS times that. The SDK sends at most a batch and a
 * recording chunk every 5 s per open tab (0.4 requests/s), so 1000/s is ~2,500 tabs recording at once, every second:
 * beyond a busy site's peak, and beyond what one process stores (docs/scaling.md), so only a runaway or hostile
 * sender meets it.
 */
export const DEFAULT_INGEST_RATE_LIMIT = 1000
/** Default of SOURCEMAP_CACHE_BYTES: the estimated memory of the parsed maps a process keeps for reads. */
export const DEFAULT_SOURCEMAP_CACHE_BYTES = 268_435_456 // 256 MiB
/** Default of RETENTION_SWEEP_SECONDS: seconds between in-process retention sweeps. */
export const DEFAULT_SWEEP_SECONDS = 300
/** How long the audit trail keeps a line (AUDIT_RETENTION_DAYS), apart from any project's visit retention. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365
export const MAX_AUDIT_RETENTION_DAYS = 36500
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
 * connections (never more than DATABASE_POOL_SIZE). Two keep a 2-core machine's cores busy.
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
/** Default of RECORDINGS_MIN_FREE: the share of the `file:` recordings' filesystem kept free by deleting the oldest recordings. */
export const DEFAULT_RECORDINGS_MIN_FREE = 0.05
/** Name of the folder beside an SQLite file that holds recordings by default (RECORDINGS_URL unset). */
export const DEFAULT_RECORDINGS_FOLDER = 'recordings'
