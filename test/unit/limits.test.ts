import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import * as common from '../../common/limits.ts'
import * as alertsLimits from '../../src/alerts/limits.ts'
import * as contractLimits from '../../src/contract/limits.ts'
import * as dashboardLimits from '../../src/dashboard/limits.ts'
import * as httpLimits from '../../src/http/limits.ts'
import * as ingestLimits from '../../src/ingest/limits.ts'
import * as issuesLimits from '../../src/issues/limits.ts'
import * as searchLimits from '../../src/search/limits.ts'
import * as sentryLimits from '../../src/sentry/limits.ts'
import * as sessionsLimits from '../../src/sessions/limits.ts'
import * as sourcemapsLimits from '../../src/sourcemaps/limits.ts'
import * as utilLimits from '../../src/util/limits.ts'
import * as visitsLimits from '../../src/visits/limits.ts'
import * as settings from '../../src/settings.ts'
import * as errors from '../../src/errors.ts'
import { loadConfig } from '../../src/config.ts'
import { MAX_FRAMES } from '../../src/sourcemaps/stack.ts'

/** A document with its line breaks and runs of spaces as single spaces, so a phrase may wrap anywhere. */
const doc = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').replace(/\s+/g, ' ')

/** Fails naming the phrase and the file, so a drifted number is found at once. */
function states(file: string, phrases: readonly string[]): void {
  const text = doc(file)
  for (const phrase of phrases) assert.ok(text.includes(phrase), `${file} should say "${phrase}" (common/limits.ts or the module's limits.ts)`)
}

/** The `| variable | default | meaning |` rows of the README's Configuration table: variable → [default, meaning]. */
function configTable(): Map<string, [string, string]> {
  const text = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const lines = text.slice(text.indexOf('| variable | default | meaning |')).split('\n').slice(2)
  const rows = new Map<string, [string, string]>()
  for (const line of lines) {
    if (!line.startsWith('|')) break
    const [, name = '', fallback = '', meaning = ''] = line.split('|').map((cell) => cell.trim())
    rows.set(name.replace(/`/g, ''), [fallback.replace(/`/g, ''), meaning])
  }
  return rows
}

/** Every limit and default: the browser-crossing ones in common/, each other one with its module, the settings' in src/settings.ts. */
const limits = {
  ...common, ...alertsLimits, ...contractLimits, ...dashboardLimits, ...httpLimits, ...ingestLimits, ...issuesLimits, ...searchLimits, ...sentryLimits, ...sessionsLimits, ...sourcemapsLimits, ...utilLimits, ...visitsLimits, ...settings,
  MAX_FRAMES, SENTRY_RETRY_SECONDS: errors.SENTRY_RETRY_SECONDS, UNAVAILABLE_RETRY_SECONDS: errors.UNAVAILABLE_RETRY_SECONDS, STORAGE_FULL_RETRY_SECONDS: errors.STORAGE_FULL_RETRY_SECONDS,
}

describe('limits and defaults', () => {
  it('the literals of common/limits.ts are the quantities their comments name', () => {
    assert.equal(limits.MAX_BATCH_BYTES, 1024 * 1024)
    assert.equal(limits.MAX_DURATION_MS, 31 * 24 * 3600 * 1000)
    assert.equal(limits.DEFAULT_MAX_CHUNK_BYTES, 512 * 1024)
    assert.equal(limits.MAX_CHUNK_BYTES_SETTING, Math.floor(((limits.MAX_BATCH_BYTES - 4096) * 3) / 4))
    assert.equal(limits.DEFAULT_MAX_SESSION_BYTES, 32 * 1024 * 1024)
    assert.equal(limits.MAX_CHUNK_JSON_BYTES, 16 * 1024 * 1024)
    assert.equal(limits.MAX_REQUEST_INFLATED_BYTES, 32 * 1024 * 1024)
    assert.equal(limits.INFLATE_RATIO_FROM_BYTES, 1024 * 1024)
    assert.equal(limits.SENTRY_HEADER_PEEK_BYTES, 64 * 1024)
    assert.equal(limits.SENTRY_MAX_BODY_BYTES, 10 * 1024 * 1024)
    assert.equal(limits.SENTRY_MAX_ENVELOPE_BYTES, 20 * 1024 * 1024)
    assert.equal(limits.SENTRY_MAX_EVENT_BYTES, 1024 * 1024)
    assert.equal(limits.SENTRY_VISIT_IDLE_MS, 30 * 60_000)
    assert.equal(limits.MAX_OFFSET, Number.MAX_SAFE_INTEGER)
    assert.equal(limits.SIGN_IN_WINDOW_MS, 15 * 60_000)
    assert.equal(limits.WEBHOOK_RATE_WINDOW_MS, 10 * 60_000)
    assert.equal(limits.WEBHOOK_BACKOFF_MAX_MS, 3600 * 1000)
    assert.equal(limits.WEBHOOK_RETRY_FOR_MS, 24 * 3600 * 1000)
    assert.ok(limits.WEBHOOK_LEASE_MS - limits.WEBHOOK_TIMEOUT_MS > 0, 'a delivery in flight is never taken over by another process')
    assert.ok(limits.WEBHOOK_RESPONSE_MAX_BYTES - 4 * limits.WEBHOOK_ERROR_MAX_CHARS >= 0, 'enough bytes for the kept characters in any UTF-8')
    assert.equal(limits.MAX_SOURCEMAP_BYTES, 256 * 1024 * 1024)
    assert.equal(limits.DEFAULT_SOURCEMAP_CACHE_BYTES, 256 * 1024 * 1024)
    assert.equal(limits.SOURCEMAP_LOOKUP_TTL_MS, 10 * 1000)
  })

  it('an empty environment gives the defaults of common/limits.ts', () => {
    const config = loadConfig({}, '/srv')
    assert.equal(config.database.location, '/srv/data/sessionwatch.db')
    assert.equal(config.database.poolSize, limits.DEFAULT_POOL_SIZE)
    assert.equal(config.database.writers, 1, 'SQLite has one writer')
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw' }).database.writers, limits.DEFAULT_DATABASE_WRITERS)
    assert.equal(config.database.statementTimeoutMs, limits.DEFAULT_STATEMENT_TIMEOUT_MS)
    assert.equal(config.database.parallelWorkers, limits.DEFAULT_PARALLEL_WORKERS)
    assert.equal(config.port, limits.DEFAULT_PORT)
    assert.equal(config.host, limits.DEFAULT_HOST)
    assert.equal(config.retentionSweepSeconds, limits.DEFAULT_SWEEP_SECONDS)
    assert.equal(config.logLevel, limits.DEFAULT_LOG_LEVEL)
    assert.deepEqual(config.recording, { maxChunkBytes: limits.DEFAULT_MAX_CHUNK_BYTES, maxSessionBytes: limits.DEFAULT_MAX_SESSION_BYTES })
    assert.equal(config.sourceMapCacheBytes, limits.DEFAULT_SOURCEMAP_CACHE_BYTES)
    assert.equal(config.ipStorage, limits.DEFAULT_IP_STORAGE)
    assert.deepEqual(config.timeouts, { requestMs: limits.DEFAULT_REQUEST_TIMEOUT_MS, headersMs: limits.DEFAULT_HEADERS_TIMEOUT_MS })
  })

  it('the README Configuration table states the defaults and bounds', () => {
    const table = configTable()
    const defaults: Record<string, string | number> = {
      DATABASE_URL: limits.DEFAULT_SQLITE_FILE,
      DATABASE_POOL_SIZE: limits.DEFAULT_POOL_SIZE,
      DATABASE_WRITERS: limits.DEFAULT_DATABASE_WRITERS,
      DATABASE_STATEMENT_TIMEOUT_MS: limits.DEFAULT_STATEMENT_TIMEOUT_MS,
      DATABASE_PARALLEL_WORKERS: limits.DEFAULT_PARALLEL_WORKERS,
      PORT: limits.DEFAULT_PORT,
      HOST: limits.DEFAULT_HOST,
      RETENTION_SWEEP_SECONDS: limits.DEFAULT_SWEEP_SECONDS,
      LOG_LEVEL: limits.DEFAULT_LOG_LEVEL,
      RECORDING_MAX_CHUNK_BYTES: limits.DEFAULT_MAX_CHUNK_BYTES,
      RECORDING_MAX_SESSION_BYTES: limits.DEFAULT_MAX_SESSION_BYTES,
      SOURCEMAP_CACHE_BYTES: limits.DEFAULT_SOURCEMAP_CACHE_BYTES,
      IP_STORAGE: limits.DEFAULT_IP_STORAGE,
      REQUEST_TIMEOUT_MS: limits.DEFAULT_REQUEST_TIMEOUT_MS,
      HEADERS_TIMEOUT_MS: limits.DEFAULT_HEADERS_TIMEOUT_MS,
      INGEST_RATE_LIMIT: limits.DEFAULT_INGEST_RATE_LIMIT,
    }
    for (const [name, value] of Object.entries(defaults)) assert.equal(table.get(name)?.[0], String(value), `README default of ${name}`)
    const meaning = (name: string) => table.get(name)?.[1] ?? ''
    assert.ok(meaning('RECORDING_MAX_CHUNK_BYTES').includes(
      `(${limits.MIN_CHUNK_BYTES_SETTING} to ${limits.MAX_CHUNK_BYTES_SETTING} bytes: its base64 must fit the ${limits.byteSize(limits.MAX_BATCH_BYTES)} ingest request)`))
    assert.ok(meaning('RECORDING_MAX_SESSION_BYTES').includes(`(${limits.byteSize(limits.DEFAULT_MAX_SESSION_BYTES)})`))
    assert.ok(meaning('ADMIN_PASSWORD').includes(`(${limits.MIN_PASSWORD_LENGTH}+ characters)`))
    assert.ok(meaning('DATABASE_PARALLEL_WORKERS').endsWith(`0 to ${limits.MAX_PARALLEL_WORKERS}`))
    assert.ok(meaning('SOURCEMAP_CACHE_BYTES').includes(`(${limits.byteSize(limits.DEFAULT_SOURCEMAP_CACHE_BYTES)})`))
    assert.equal(limits.INGEST_BURST_SECONDS, 2, 'the docs say "bursts of twice that"')
    assert.ok(meaning('INGEST_RATE_LIMIT').includes(`with bursts of twice that, 0 to ${limits.MAX_INGEST_RATE_LIMIT}`))
  })

  it('the README and docs state the ingest rate limit, quota and writer queues', () => {
    states('README.md', [
      `\`INGEST_RATE_LIMIT\` requests per second (default ${limits.DEFAULT_INGEST_RATE_LIMIT}, bursts of twice that)`,
      `a writer queue of their own (at most ${limits.WRITER_MAX_QUEUED_PER_PROJECT})`,
    ])
    states('docs/api.md', [
      `\`INGEST_RATE_LIMIT\` (default ${limits.DEFAULT_INGEST_RATE_LIMIT} a second, 0 to ${limits.MAX_INGEST_RATE_LIMIT}`,
      `(\`dailyEventQuota\`, 1 to ${limits.MAX_DAILY_EVENT_QUOTA};`,
      `a queue of its own of at most ${limits.WRITER_MAX_QUEUED_PER_PROJECT} batches (${limits.WRITER_MAX_QUEUED} in all)`,
      `with at most ${limits.WRITER_SHARED_GROUP_EVENTS} events of one project in a commit while another waits`,
    ])
  })

  it('the README and docs/api.md state the source map limits', () => {
    const size = limits.byteSize(limits.MAX_SOURCEMAP_BYTES)
    const ttl = `${limits.SOURCEMAP_LOOKUP_TTL_MS / 1000} s`
    states('README.md', [`one map per request, up to ${size}`, `else within ${ttl}`])
    states('docs/scaling.md', [`at most ${limits.SOURCEMAP_MAX_CONCURRENT_UPLOADS} run at once per process`, `is used within ${ttl}`, `\`SOURCEMAP_CACHE_BYTES\` (default ${limits.byteSize(limits.DEFAULT_SOURCEMAP_CACHE_BYTES)})`])
    states('docs/api.md', [
      `**At most ${limits.SOURCEMAP_MAX_CONCURRENT_UPLOADS} uploads at once** per server process`,
      `or ${limits.SOURCEMAP_MAX_CONCURRENT_UPLOADS} source map uploads are running on the process`,
      `Up to ${size} uncompressed`,
      `a source map over ${size} (uncompressed)`,
      `\`SOURCEMAP_CACHE_BYTES\` (default ${limits.byteSize(limits.DEFAULT_SOURCEMAP_CACHE_BYTES)}, estimated heap)`,
      `remembers for ${ttl} what a script URL resolved to`,
      `use it within ${ttl}`,
      `\`context\` is \`{pre, line, post}\`: ${limits.SOURCE_CONTEXT_LINES} lines of original source`,
      `each cut to ${limits.MAX_SOURCE_CONTEXT_LINE_LENGTH} characters`,
    ])
  })

  it('the README states the dashboard page size and sign-in throttle', () => {
    states('README.md', [
      `newest activity first, ${limits.DASHBOARD_PAGE_SIZE} per page`,
      `after ${limits.SIGN_IN_FREE_FAILURES} failed sign-ins from one address, each further attempt waits ${limits.SIGN_IN_FIRST_DELAY_MS / 1000} s`,
      `doubling up to ${limits.SIGN_IN_MAX_DELAY_MS / 1000} s`,
      `forgotten ${limits.SIGN_IN_WINDOW_MS / 60_000} minutes after its last attempt`,
      `at most ${limits.SIGN_IN_MAX_CONCURRENT_CHECKS} passwords are checked at once`,
      `kept ${limits.SIGN_IN_DEVICE_SECONDS / 86_400} days`,
    ])
    states('docs/api.md', [
      `more than ${limits.SIGN_IN_FREE_FAILURES} failed dashboard sign-ins from one address`,
      `${limits.SIGN_IN_MAX_CONCURRENT_CHECKS} sign-ins being checked at once`,
    ])
  })

  it('the README states the webhook limits, retries and settings', () => {
    const table = configTable()
    assert.equal(table.get('WEBHOOK_ALLOW_PRIVATE')?.[0], 'false')
    assert.ok(table.has('PUBLIC_URL'))
    states('README.md', [
      `at most ${limits.WEBHOOK_RATE_LIMIT} alerts per project in ${limits.WEBHOOK_RATE_WINDOW_MS / 60_000} minutes`,
      `retried for ${limits.WEBHOOK_RETRY_FOR_MS / 3_600_000} hours`,
      `first after ${limits.WEBHOOK_BACKOFF_BASE_MS / 1000} s, doubling up to ${limits.WEBHOOK_BACKOFF_MAX_MS / 3_600_000} hour`,
      `within ${limits.WEBHOOK_TIMEOUT_MS / 1000} s`,
      `every ${limits.WEBHOOK_POLL_MS / 1000} s`,
      `at most ${limits.MAX_WEBHOOKS_PER_PROJECT} webhooks`,
      `the latest ${limits.WEBHOOK_LOG_SIZE} deliveries`,
      `first ${limits.WEBHOOK_ERROR_MAX_CHARS} characters`,
      `at most ${limits.WEBHOOK_CHAT_MAX_CHARS} characters`,
    ])
  })

  it('docs/api.md states the read, ingest, recording and retention limits', () => {
    states('docs/api.md', [
      `"limit must be an integer from 1 to ${limits.MAX_LIMIT} (got \\"0\\")"`,
      `\`limit\` 1–${limits.MAX_LIMIT} (default ${limits.DEFAULT_LIMIT}), \`offset\` 0 to ${limits.MAX_OFFSET} = 2^53−1`,
      `\`id\` over ${limits.MAX_SESSION_ID_LENGTH} characters, a \`chunkId\` over ${limits.MAX_CHUNK_ID_LENGTH}`,
      `**Limits**: ${limits.byteSize(limits.MAX_BATCH_BYTES)} and ${limits.MAX_EVENTS_PER_BATCH} events per batch.`,
      `\`…[truncated N chars]\`: ${limits.textLimitsProse()} characters.`,
      `(at most ${limits.MAX_CHUNKS_PER_BATCH} per request;`,
      `\`RECORDING_MAX_CHUNK_BYTES\` (default ${limits.byteSize(limits.DEFAULT_MAX_CHUNK_BYTES)} compressed)`,
      `\`RECORDING_MAX_SESSION_BYTES\` (default ${limits.byteSize(limits.DEFAULT_MAX_SESSION_BYTES)})`,
      `(default ${limits.DEFAULT_RETENTION_DAYS} days; \`--retention-days\` at creation)`,
      `(every \`RETENTION_SWEEP_SECONDS\`, default ${limits.DEFAULT_SWEEP_SECONDS})`,
      `in transactions of ${limits.SWEEP_BATCH} sessions`,
      `Matches are deleted in transactions of ${limits.SWEEP_BATCH} visits`,
      `may name up to ${limits.MAX_MASK_FIELDS} more field names (\`maskFields\`, each up to ${limits.MAX_MASK_FIELD_LENGTH} characters`,
      `follows \`IP_STORAGE\` (default \`${limits.DEFAULT_IP_STORAGE}\`)`,
      `and up to ${limits.ISSUE_VISITS} recent visits that hit it, chosen among its ${limits.ISSUE_VISITS_WINDOW} latest to start`,
      `the project's ${limits.REGROUP_ISSUES} most recently seen`,
      `a line over ${limits.MAX_STACK_LINE_LENGTH} characters is no frame`,
      `an ingest body over ${limits.byteSize(limits.MAX_BATCH_BYTES)}`,
      `retry after \`Retry-After\` (${limits.UNAVAILABLE_RETRY_SECONDS} s)`,
      `retry after \`Retry-After\` (${limits.STORAGE_FULL_RETRY_SECONDS} s)`,
      `its head within \`HEADERS_TIMEOUT_MS\` (${limits.DEFAULT_HEADERS_TIMEOUT_MS / 1000} s) or all of it within \`REQUEST_TIMEOUT_MS\` (${limits.DEFAULT_REQUEST_TIMEOUT_MS / 1000} s)`,
      `\`REQUEST_TIMEOUT_MS\` (${limits.DEFAULT_REQUEST_TIMEOUT_MS / 1000} s by default`,
    ])
  })

  it('docs/api.md and docs/sentry.md state the inflation bounds', () => {
    const bounds = [
      `${limits.byteSize(limits.MAX_CHUNK_JSON_BYTES)} per chunk`,
      `${limits.MAX_INFLATE_RATIO} times its compressed size once past ${limits.byteSize(limits.INFLATE_RATIO_FROM_BYTES)}`,
      `and ${limits.byteSize(limits.MAX_REQUEST_INFLATED_BYTES)} for all the chunks of one request together`,
    ]
    states('docs/api.md', bounds)
    states('README.md', [`inflates beyond ${limits.byteSize(limits.MAX_CHUNK_JSON_BYTES)} a chunk, ${limits.MAX_INFLATE_RATIO} times its size, or ${limits.byteSize(limits.MAX_REQUEST_INFLATED_BYTES)} a request`])
    states('docs/sentry.md', [
      `a segment may inflate to ${limits.byteSize(limits.MAX_CHUNK_JSON_BYTES)}`,
      `any data to ${limits.MAX_INFLATE_RATIO} times its compressed size once past ${limits.byteSize(limits.INFLATE_RATIO_FROM_BYTES)}`,
      `one request's body and segments to ${limits.byteSize(limits.MAX_REQUEST_INFLATED_BYTES)} together`,
      `(at most ${limits.byteSize(limits.SENTRY_HEADER_PEEK_BYTES)} of it)`,
      `Up to ${limits.MAX_FRAMES} frames an exception, ${limits.SENTRY_MAX_CHAIN} exceptions a chain, names and paths cut to ${limits.SENTRY_MAX_FRAME_NAME_LENGTH} characters`,
      `${limits.SOURCE_CONTEXT_LINES} lines either side, ${limits.MAX_SOURCE_CONTEXT_LINE_LENGTH} characters a line, ${limits.SENTRY_MAX_CONTEXT_CHARS} characters over an event's frames`,
    ])
  })

  it('docs/scaling.md and docs/sdk.md state the pool, timeout, sweep and chunk defaults', () => {
    states('docs/scaling.md', [
      `\`DATABASE_POOL_SIZE\` (default ${limits.DEFAULT_POOL_SIZE})`,
      `\`DATABASE_WRITERS\` (default ${limits.DEFAULT_DATABASE_WRITERS})`,
      `\`DATABASE_STATEMENT_TIMEOUT_MS\` (default ${limits.DEFAULT_STATEMENT_TIMEOUT_MS / 1000} s)`,
      `\`DATABASE_PARALLEL_WORKERS\` (default ${limits.DEFAULT_PARALLEL_WORKERS})`,
      `Sweeps delete ${limits.SWEEP_BATCH} sessions`,
    ])
    states('docs/sdk.md', [`| \`recordMaxChunkBytes\` | ${limits.DEFAULT_MAX_CHUNK_BYTES} |`])
  })

  it('docs/sdk.md states the limits of identify, setTags, release, environment, consent and maskFields', () => {
    states('docs/sdk.md', [
      `cut to ${limits.MAX_USER_ID_LENGTH} characters; an empty one`,
      `at most ${limits.MAX_META_KEY_LENGTH} characters (others are dropped`,
      `string values are cut to ${limits.MAX_META_VALUE_LENGTH} characters`,
      `the first ${limits.MAX_TRAITS} traits are kept`,
      `taken with \`String()\` and cut to ${limits.MAX_META_VALUE_LENGTH} characters, \`null\``,
      `at most ${limits.MAX_TAGS} keys are kept`,
      `cut to ${limits.MAX_RELEASE_LENGTH} characters, ignored when empty`,
      `cut to ${limits.MAX_ENVIRONMENT_LENGTH} characters, ignored when empty`,
      `at most ${limits.CONSENT_QUEUE_MAX} events (beyond them the oldest are dropped`,
      `At most ${limits.MAX_MASK_FIELDS} names of up to ${limits.MAX_MASK_FIELD_LENGTH} characters are used`,
    ])
  })
})
