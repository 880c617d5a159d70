import path from 'node:path'
import { byteSize } from './util/limits.ts'
import { DEFAULT_DATABASE_WRITERS, DEFAULT_HOST, DEFAULT_IP_STORAGE, DEFAULT_LOG_LEVEL, DEFAULT_MAX_SESSION_BYTES, DEFAULT_POOL_SIZE, DEFAULT_PORT, DEFAULT_RECORDINGS_FOLDER, DEFAULT_RECORDINGS_MIN_FREE, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_INGEST_RATE_LIMIT, DEFAULT_PARALLEL_WORKERS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SOURCEMAP_CACHE_BYTES, DEFAULT_SQLITE_FILE, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_SWEEP_SECONDS, DEFAULT_AUDIT_RETENTION_DAYS, MAX_AUDIT_RETENTION_DAYS, MAX_CHUNK_BYTES_SETTING, MAX_DATABASE_WRITERS, MAX_HEAP_GROWTH_PERCENT, MAX_PARALLEL_WORKERS, MAX_POOL_SIZE, MIN_HEAP_GROWTH_PERCENT, MIN_CHUNK_BYTES_SETTING, MIN_POOL_SIZE } from './settings.ts'
import { MIN_PASSWORD_LENGTH } from '../common/limits.ts'
import { DEFAULT_MAX_CHUNK_BYTES, IP_STORAGE_MODES, MAX_INGEST_RATE_LIMIT } from '../common/limits.ts'
import { MAX_BATCH_BYTES } from './contract/limits.ts'
import { isIpStorage, type IpStorage } from './privacy/ip.ts'
import { UPLOAD_KEY_PREFIX } from './projects/keys.ts'
import { parseStoreUrl, type RecordingsConfig, type StoreUrl } from './recording/store/url.ts'
import { readSmtpSettings, type SmtpSettings } from './mail/settings.ts'
import { readSignInSettings, type OidcSettings } from './sso/settings.ts'
import { bad, ok, parseBoolean, parseUrlSetting, type Parsed } from './util/setting.ts'

export type { Parsed }

/** Which storage engine a database URL selects. */
export type Engine = 'sqlite' | 'postgres'

export interface DatabaseConfig {
  readonly engine: Engine
  /** SQLite: the file path; PostgreSQL: the connection URL. */
  readonly location: string
  /** PostgreSQL connections per process. */
  readonly poolSize: number
  /** PostgreSQL statement_timeout, in milliseconds. */
  readonly statementTimeoutMs: number
  /** PostgreSQL max_parallel_workers_per_gather on the service's connections. */
  readonly parallelWorkers: number
  /** Group commits run at once (PostgreSQL; SQLite has one writer, so always 1). */
  readonly writers: number
}

export interface Config {
  readonly database: DatabaseConfig
  readonly host: string
  readonly port: number
  /** Passed to Fastify's `trustProxy`: false, true, a hop count or a list of addresses/CIDRs. */
  readonly trustProxy: boolean | number | string[]
  /** Path to an MMDB IP-to-country file; null means the bundled CC0 database. */
  readonly geoipDatabase: string | null
  /** Seconds between retention sweeps; 0 turns the in-process sweeper off. */
  readonly retentionSweepSeconds: number
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Compressed bytes allowed per recording chunk and per session; beyond them chunks are dropped and counted. */
  readonly recording: { readonly maxChunkBytes: number; readonly maxSessionBytes: number }
  /** RECORDINGS_URL, S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE, RECORDINGS_MIN_FREE: where chunks live (docs/scaling.md). */
  readonly recordings: RecordingsConfig
  /** The dashboard password; null means the one generated on first start (kept hashed in the database). */
  readonly adminPassword: string | null
  /**
   * The address people open the service at (`https://sw.example.com`, no trailing slash), for the links in
   * webhook messages and the projects' Sentry DSNs; null: the links are relative paths (`/app#/p/…`), chat
   * messages carry none, and a DSN is on the address the server was reached at (the CLI: localhost:PORT).
   */
  readonly publicUrl: string | null
  /**
   * DEMO: whether `/demo` is served (it hands out a project's ingest key). null (unset): only while the project the
   * first start created is the only one, so a real deployment does not serve it unless asked.
   */
  readonly demo: boolean | null
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may reach loopback, private and other non-public addresses (a LAN chat server). */
  readonly webhooks: { readonly allowPrivate: boolean }
  /** Estimated bytes of parsed source maps a process keeps in memory for reads (an LRU bounded by this). */
  readonly sourceMapCacheBytes: number
  /** IP_STORAGE: how much of a visitor's IP address is stored, for projects that do not choose (projects.ip_storage null). */
  readonly ipStorage: IpStorage
  /**
   * HEAP_GROWTH_PERCENT: how far the heap may grow past its live size before a full collection (set by `serve`);
   * null: V8 chooses. Lower holds peak memory down at some CPU (docs/performance.md, Memory).
   */
  readonly heapGrowthPercent: number | null
  /**
   * REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS: how long after it started a request's head and body, and its head
   * alone, must have arrived (408 otherwise); a request of 0 has no deadline but its head's.
   */
  readonly timeouts: { readonly requestMs: number; readonly headersMs: number }
  /**
   * SESSIONWATCH_ENDPOINT and SESSIONWATCH_UPLOAD_KEY: where the CLI's `sourcemaps upload` sends maps over HTTP from
   * a build machine, and the project upload key it sends (its --endpoint and --key take precedence); null: unset.
   */
  readonly uploadClient: { readonly endpoint: string | null; readonly key: string | null }
  /**
   * INGEST_RATE_LIMIT: ingest requests per second per project and process (burst INGEST_BURST_SECONDS times that), for
   * projects that do not set their own; 0: no limit.
   */
  readonly ingestRateLimit: number
  /** OIDC_*: single sign-on through an OpenID Connect provider; null when OIDC_ISSUER is unset. */
  readonly oidc: OidcSettings | null
  /** Days the audit trail keeps a line (AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number
  /** PASSWORD_LOGIN: whether the password sign-in is offered (false only beside single sign-on). */
  readonly passwordLogin: boolean
  /** SMTP_URL and SMTP_FROM: where mail (invitations) is sent through; null when SMTP_URL is unset. */
  readonly smtp: SmtpSettings | null
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

type Env = Readonly<Record<string, string | undefined>>

/**
 * Reads every setting from the environment once and returns a frozen object.
 * Every bad variable is reported in one ConfigError, so a user fixes them all in one go.
 *
 * @example
 * const config = loadConfig(process.env)
 * config.port // 8080
 */
export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const problems: string[] = []
  const read = <T>(name: string, fallback: T, parse: (raw: string) => Parsed<T>): T => {
    const raw = env[name]
    if (raw === undefined || raw.trim() === '') return fallback
    const result = parse(raw.trim())
    if ('problem' in result) {
      problems.push(`${shown(name, raw)}: ${result.problem}`)
      return fallback
    }
    return result.value
  }

  const database = parseDatabaseUrl(env.DATABASE_URL, cwd)
  if (typeof database === 'string') problems.push(`${shown('DATABASE_URL', env.DATABASE_URL ?? '')}: ${database}`)
  const poolSize = read('DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= MIN_POOL_SIZE && Number(raw) <= MAX_POOL_SIZE
      ? ok(Number(raw)) : bad(`must be a whole number from ${MIN_POOL_SIZE} to ${MAX_POOL_SIZE}`),
  )
  // Each group commit holds a pooled connection while it runs: never more of them than connections.
  const writers = typeof database !== 'string' && database.engine === 'sqlite' ? 1
    : read('DATABASE_WRITERS', Math.min(DEFAULT_DATABASE_WRITERS, poolSize), (raw) =>
      /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= Math.min(MAX_DATABASE_WRITERS, poolSize)
        ? ok(Number(raw)) : bad(`must be a whole number from 1 to ${Math.min(MAX_DATABASE_WRITERS, poolSize)} (at most DATABASE_POOL_SIZE, ${poolSize})`),
    )
  const statementTimeoutMs = read('DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_STATEMENT_TIMEOUT_MS, (raw) =>
    /^\d+$/.test(raw) ? ok(Number(raw)) : bad('must be a whole number of milliseconds (0 means no limit)'),
  )
  const parallelWorkers = read('DATABASE_PARALLEL_WORKERS', DEFAULT_PARALLEL_WORKERS, (raw) =>
    /^\d+$/.test(raw) && Number(raw) <= MAX_PARALLEL_WORKERS
      ? ok(Number(raw)) : bad(`must be a whole number from 0 (no parallel workers) to ${MAX_PARALLEL_WORKERS}`),
  )

  const port = read('PORT', DEFAULT_PORT, (raw) =>
    /^\d+$/.test(raw) && Number(raw) <= 65535 ? ok(Number(raw)) : bad('must be a port number from 0 to 65535'),
  )
  const host = env.HOST?.trim() ? env.HOST.trim() : DEFAULT_HOST
  const trustProxy = read<Config['trustProxy']>('TRUST_PROXY', false, parseTrustProxy)
  const retentionSweepSeconds = read('RETENTION_SWEEP_SECONDS', DEFAULT_SWEEP_SECONDS, (raw) =>
    /^\d+$/.test(raw) ? ok(Number(raw)) : bad('must be a whole number of seconds (0 turns the sweeper off)'),
  )
  const auditRetentionDays = read('AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS, (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_AUDIT_RETENTION_DAYS ? ok(Number(raw)) : bad(`must be a whole number of days from 1 to ${MAX_AUDIT_RETENTION_DAYS}`),
  )
  const logLevel = read<Config['logLevel']>('LOG_LEVEL', DEFAULT_LOG_LEVEL, (raw) => {
    const level = LOG_LEVELS.find((l) => l === raw)
    return level ? ok(level) : bad(`must be one of ${LOG_LEVELS.join(', ')}`)
  })
  const maxChunkBytes = read('RECORDING_MAX_CHUNK_BYTES', DEFAULT_MAX_CHUNK_BYTES, (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= MIN_CHUNK_BYTES_SETTING && Number(raw) <= MAX_CHUNK_BYTES_SETTING
      ? ok(Number(raw))
      : bad(`must be a whole number of bytes from ${MIN_CHUNK_BYTES_SETTING} to ${MAX_CHUNK_BYTES_SETTING} `
        + `(a chunk rides in one ${byteSize(MAX_BATCH_BYTES)} request)`),
  )
  const maxSessionBytes = read('RECORDING_MAX_SESSION_BYTES', DEFAULT_MAX_SESSION_BYTES, (raw) =>
    /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? ok(Number(raw)) : bad('must be a whole number of bytes (0 stores no recordings)'),
  )
  const adminPassword = read<string | null>('ADMIN_PASSWORD', null, (raw) =>
    raw.length >= MIN_PASSWORD_LENGTH
      ? ok(raw) : bad(`must be at least ${MIN_PASSWORD_LENGTH} characters (unset: one is generated on first start and printed)`),
  )
  const publicUrl = read<string | null>('PUBLIC_URL', null, parsePublicUrl)
  const allowPrivate = read('WEBHOOK_ALLOW_PRIVATE', false, parseBoolean)
  const demo = read<boolean | null>('DEMO', null, parseBoolean)
  const sourceMapCacheBytes = read('SOURCEMAP_CACHE_BYTES', DEFAULT_SOURCEMAP_CACHE_BYTES, (raw) =>
    /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw))
      ? ok(Number(raw)) : bad('must be a whole number of bytes (0 keeps no parsed map: each read parses again)'),
  )
  const ipStorage = read<IpStorage>('IP_STORAGE', DEFAULT_IP_STORAGE, (raw) =>
    isIpStorage(raw) ? ok(raw) : bad(`must be one of ${IP_STORAGE_MODES.join(', ')} (a project may choose its own)`))
  const heapGrowthPercent = read<number | null>('HEAP_GROWTH_PERCENT', null, (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= MIN_HEAP_GROWTH_PERCENT && Number(raw) <= MAX_HEAP_GROWTH_PERCENT
      ? ok(Number(raw)) : bad(`must be a whole number from ${MIN_HEAP_GROWTH_PERCENT} to ${MAX_HEAP_GROWTH_PERCENT} (unset: V8 chooses)`))
  const requestMs = read('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, (raw) =>
    /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? ok(Number(raw)) : bad('must be a whole number of milliseconds (0: no deadline for the body)'))
  const headersMs = read('HEADERS_TIMEOUT_MS', Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestMs || DEFAULT_HEADERS_TIMEOUT_MS), (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= 1 && (requestMs === 0 || Number(raw) <= requestMs)
      ? ok(Number(raw)) : bad(`must be a whole number of milliseconds from 1 to REQUEST_TIMEOUT_MS (${requestMs})`))
  const endpoint = read<string | null>('SESSIONWATCH_ENDPOINT', null, parsePublicUrl)
  const uploadKey = read<string | null>('SESSIONWATCH_UPLOAD_KEY', null, (raw) =>
    raw.startsWith(UPLOAD_KEY_PREFIX) ? ok(raw) : bad(`must be a project upload key (${UPLOAD_KEY_PREFIX}…), shown once on the dashboard's API tab`))
  const ingestRateLimit = read('INGEST_RATE_LIMIT', DEFAULT_INGEST_RATE_LIMIT, (raw) =>
    /^\d+$/.test(raw) && Number(raw) <= MAX_INGEST_RATE_LIMIT
      ? ok(Number(raw)) : bad(`must be a whole number of requests per second from 0 (no limit) to ${MAX_INGEST_RATE_LIMIT} (a project may set its own)`))
  // Beside an SQLite file by default, so the database stays small; PostgreSQL may serve several hosts, which a
  // local folder would not, so there the database keeps them unless told otherwise.
  const defaultStore = typeof database !== 'string' && database.engine === 'sqlite' && database.location !== ':memory:'
    ? `file:${path.join(path.dirname(database.location), DEFAULT_RECORDINGS_FOLDER)}` : 'database:'
  const store = read<StoreUrl>('RECORDINGS_URL', parseStoreUrl(defaultStore, (p) => p) as StoreUrl, (raw) => {
    const parsed = parseStoreUrl(raw, (p) => path.resolve(cwd, p))
    return typeof parsed === 'string' ? bad(parsed) : ok(parsed)
  })
  const s3Endpoint = read<string | null>('S3_ENDPOINT', null, parsePublicUrl)
  const s3Region = env.S3_REGION?.trim() ? env.S3_REGION.trim() : null
  const forcePathStyle = read('S3_FORCE_PATH_STYLE', false, parseBoolean)
  const minFreeShare = read('RECORDINGS_MIN_FREE', DEFAULT_RECORDINGS_MIN_FREE, (raw) =>
    /^\d+(?:\.\d+)?%?$/.test(raw) && Number(raw.replace('%', '')) < 100
      ? ok(Number(raw.replace('%', '')) / 100) : bad('must be a percentage of the disk from 0 to 99, such as 5%'))
  const geoip = env.GEOIP_DB?.trim() ? path.resolve(cwd, env.GEOIP_DB.trim()) : null
  const { oidc, passwordLogin } = readSignInSettings(read, problems)
  const smtp = readSmtpSettings(read, publicUrl, problems)

  if (problems.length > 0 || typeof database === 'string') throw new ConfigError(problems)
  return Object.freeze({
    database: Object.freeze({ ...database, poolSize, statementTimeoutMs, parallelWorkers, writers }),
    host,
    port,
    trustProxy,
    geoipDatabase: geoip,
    retentionSweepSeconds,
    logLevel,
    recording: Object.freeze({ maxChunkBytes, maxSessionBytes }),
    recordings: Object.freeze({ store, s3: Object.freeze({ endpoint: s3Endpoint, region: s3Region, forcePathStyle }), minFreeShare }),
    adminPassword,
    publicUrl,
    webhooks: Object.freeze({ allowPrivate }),
    demo,
    sourceMapCacheBytes,
    ipStorage,
    heapGrowthPercent,
    timeouts: Object.freeze({ requestMs, headersMs }),
    uploadClient: Object.freeze({ endpoint, key: uploadKey }),
    ingestRateLimit,
    oidc,
    passwordLogin,
    auditRetentionDays,
    smtp,
  })
}

/** Maps DATABASE_URL to an engine; returns a problem description when it is not usable. */
export function parseDatabaseUrl(raw: string | undefined, cwd: string): Pick<DatabaseConfig, 'engine' | 'location'> | string {
  const value = raw?.trim() ?? ''
  if (value === '') return { engine: 'sqlite', location: path.resolve(cwd, DEFAULT_SQLITE_FILE) }
  const sqlite = /^(?:file|sqlite):(.+)$/.exec(value)
  if (sqlite?.[1]) {
    const file = sqlite[1].replace(/^\/\/(?=\/)/, '')
    return { engine: 'sqlite', location: file === ':memory:' ? file : path.resolve(cwd, file) }
  }
  if (/^postgres(?:ql)?:\/\//.test(value)) {
    try {
      new URL(value)
    } catch {
      return 'is not a valid postgres:// URL'
    }
    return { engine: 'postgres', location: value }
  }
  return `must be file:PATH, sqlite:PATH or a postgres:// URL (unset: ${DEFAULT_SQLITE_FILE})`
}

/** Settings whose whole value is a secret: a problem with one names its length, never its text. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['ADMIN_PASSWORD', 'SESSIONWATCH_UPLOAD_KEY', 'OIDC_CLIENT_SECRET'])

/**
 * A setting as a configuration error shows it: logs and terminals keep what is printed, so a secret value is never
 * echoed, nor the password of a URL (DATABASE_URL's `postgres://user:PASSWORD@host`, read even when the URL is not
 * valid, up to its last `@`).
 */
function shown(name: string, raw: string): string {
  if (SECRET_SETTINGS.has(name)) return `${name} (${raw.length} characters, not shown)`
  return `${name}=${JSON.stringify(raw.replace(/^([^:/?#@]+:\/\/[^:/?#@]*:)[^\n]*@/, '$1***@'))}`
}

/** An http(s) address the service is opened at, without a trailing slash: PUBLIC_URL, and where the CLI uploads to. */
export function parsePublicUrl(raw: string): Parsed<string> {
  const url = parseUrlSetting(raw, ['http:', 'https:'], 'must be an http:// or https:// URL such as https://sessionwatch.example.com',
    'must start with http:// or https://', 'must be the address the service is opened at, without credentials, query or fragment')
  // A path is kept: behind a proxy the service may live under one (https://example.com/sessionwatch).
  return 'problem' in url ? url : ok(url.value.href.replace(/\/+$/, ''))
}

function parseTrustProxy(raw: string): Parsed<Config['trustProxy']> {
  if (raw === 'true') return ok(true)
  if (raw === 'false') return ok(false)
  if (/^\d+$/.test(raw)) return ok(Number(raw))
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean)
  const invalid = list.filter((s) => !/^[0-9a-fA-F:.]+(?:\/\d{1,3})?$/.test(s))
  if (invalid.length > 0 || list.length === 0) {
    return bad('must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs')
  }
  return ok(list)
}
