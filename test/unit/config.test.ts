import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { DEFAULT_INGEST_RATE_LIMIT, MAX_PARALLEL_WORKERS } from '../../src/settings.ts'
import { MAX_INGEST_RATE_LIMIT } from '../../common/limits.ts'

describe('loadConfig', () => {
  it('defaults to the SQLite file ./data/sessionwatch.db, port 8080, all interfaces', () => {
    const c = loadConfig({}, '/srv/app')
    assert.deepEqual(c.database, { engine: 'sqlite', location: '/srv/app/data/sessionwatch.db', poolSize: 10, statementTimeoutMs: 30_000, parallelWorkers: 0, writers: 1 })
    assert.equal(c.port, 8080)
    assert.equal(c.host, '0.0.0.0')
    assert.equal(c.trustProxy, false)
    assert.equal(c.retentionSweepSeconds, 300)
    assert.ok(Object.isFrozen(c))
  })
  it('reads file: and sqlite: URLs relative to the working directory', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'file:db/x.db' }, '/srv').database.location, path.resolve('/srv/db/x.db'))
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/abs/y.db' }, '/srv').database.location, '/abs/y.db')
    assert.equal(loadConfig({ DATABASE_URL: 'file:///abs/z.db' }, '/srv').database.location, '/abs/z.db')
  })
  it('selects PostgreSQL for postgres:// URLs', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u:p@localhost:5432/sw' }).database.engine, 'postgres')
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://localhost/sw' }).database.engine, 'postgres')
  })
  it('reads the PostgreSQL pool size and statement timeout', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_POOL_SIZE: '25', DATABASE_STATEMENT_TIMEOUT_MS: '5000' })
    assert.equal(c.database.poolSize, 25)
    assert.equal(c.database.statementTimeoutMs, 5000)
    assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: '0', DATABASE_STATEMENT_TIMEOUT_MS: 'soon' }),
      (e: unknown) => e instanceof ConfigError && e.problems.length === 2)
  })
  it('reads DATABASE_PARALLEL_WORKERS, 0 to PostgreSQL\'s own bound, and names the bounds of a bad value', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw' }).database.parallelWorkers, 0)
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_PARALLEL_WORKERS: '2' }).database.parallelWorkers, 2)
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_PARALLEL_WORKERS: String(MAX_PARALLEL_WORKERS) }).database.parallelWorkers,
      MAX_PARALLEL_WORKERS)
    for (const bad of ['-1', String(MAX_PARALLEL_WORKERS + 1), 'two']) {
      assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_PARALLEL_WORKERS: bad }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(`DATABASE_PARALLEL_WORKERS`)
          && e.message.includes(`from 0 (no parallel workers) to ${MAX_PARALLEL_WORKERS}`))
    }
  })
  it('reads DATABASE_WRITERS for PostgreSQL, at most the pool size; SQLite has one writer whatever it says', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_WRITERS: '4' }).database.writers, 4)
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_POOL_SIZE: '1' }).database.writers, 1, 'the default fits the pool')
    assert.equal(loadConfig({ DATABASE_WRITERS: '4' }).database.writers, 1)
    for (const bad of ['0', '11', 'two']) {
      assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://localhost/sw', DATABASE_WRITERS: bad }),
        (e: unknown) => e instanceof ConfigError && /DATABASE_WRITERS=.*from 1 to 10 \(at most DATABASE_POOL_SIZE, 10\)/.test(e.message))
    }
  })
  it('reads TRUST_PROXY as a flag, a hop count or a list', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1'])
  })
  it('reads the recording limits and the admin password', () => {
    const d = loadConfig({})
    assert.deepEqual(d.recording, { maxChunkBytes: 524_288, maxSessionBytes: 33_554_432 })
    assert.equal(d.adminPassword, null)
    const c = loadConfig({ RECORDING_MAX_CHUNK_BYTES: '65536', RECORDING_MAX_SESSION_BYTES: '0', ADMIN_PASSWORD: 'long enough' })
    assert.deepEqual(c.recording, { maxChunkBytes: 65_536, maxSessionBytes: 0 })
    assert.equal(c.adminPassword, 'long enough')
    assert.throws(() => loadConfig({ RECORDING_MAX_CHUNK_BYTES: '2000000', ADMIN_PASSWORD: 'short' }), (error: unknown) =>
      error instanceof ConfigError && error.problems.length === 2 && /1 MiB request/.test(error.message) && /at least 8/.test(error.message))
  })
  it('never echoes ADMIN_PASSWORD or the password inside DATABASE_URL in a configuration error', () => {
    const problems = (env: Record<string, string>): string => {
      try {
        loadConfig(env)
      } catch (error) {
        if (error instanceof ConfigError) return error.message
      }
      throw new Error('expected a ConfigError')
    }
    const password = problems({ ADMIN_PASSWORD: 's3cr' })
    assert.doesNotMatch(password, /s3cr/)
    assert.match(password, /ADMIN_PASSWORD \(4 characters, not shown\): must be at least 8/)
    for (const url of ['postgres://sw:hunter2-p@ss@db:99999/sw', 'postgresql://sw:hunter2@[bad/sw', 'mysql://sw:hunter2@db/sw']) {
      const message = problems({ DATABASE_URL: url })
      assert.doesNotMatch(message, /hunter2/, url)
      assert.match(message, /DATABASE_URL="[a-z]+:\/\/sw:\*\*\*@/, url)
    }
  })
  it('reads IP_STORAGE as full, truncated or none, full by default', () => {
    assert.equal(loadConfig({}).ipStorage, 'full')
    assert.equal(loadConfig({ IP_STORAGE: 'truncated' }).ipStorage, 'truncated')
    assert.equal(loadConfig({ IP_STORAGE: ' none ' }).ipStorage, 'none')
    assert.throws(() => loadConfig({ IP_STORAGE: 'anonymized' }), (error: unknown) =>
      error instanceof ConfigError && /IP_STORAGE="anonymized": must be one of full, truncated, none/.test(error.message))
  })
  it('reads INGEST_RATE_LIMIT as requests per second, 0 (no limit) to its bound, 1000 by default', () => {
    assert.equal(loadConfig({}).ingestRateLimit, DEFAULT_INGEST_RATE_LIMIT)
    assert.equal(loadConfig({ INGEST_RATE_LIMIT: '0' }).ingestRateLimit, 0)
    assert.equal(loadConfig({ INGEST_RATE_LIMIT: '250' }).ingestRateLimit, 250)
    for (const bad of ['-1', '1.5', 'fast', String(MAX_INGEST_RATE_LIMIT + 1)]) {
      assert.throws(() => loadConfig({ INGEST_RATE_LIMIT: bad }), (error: unknown) => error instanceof ConfigError
        && error.message.includes(`INGEST_RATE_LIMIT="${bad}": must be a whole number of requests per second from 0 (no limit) to ${MAX_INGEST_RATE_LIMIT}`))
    }
  })

  it('reads HEAP_GROWTH_PERCENT from 10 to 300; unset, V8 chooses', () => {
    assert.equal(loadConfig({}).heapGrowthPercent, null)
    assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent, 50)
    for (const bad of ['5', '301', '1.5', 'low']) {
      assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: bad }), (error: unknown) =>
        error instanceof ConfigError && /HEAP_GROWTH_PERCENT=.*must be a whole number from 10 to 300 \(unset: V8 chooses\)/.test(error.message), bad)
    }
  })
  it('reads the request and header deadlines; a header deadline past the request\'s is refused', () => {
    assert.deepEqual(loadConfig({}).timeouts, { requestMs: 30_000, headersMs: 10_000 })
    assert.deepEqual(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).timeouts, { requestMs: 5000, headersMs: 5000 })
    assert.deepEqual(loadConfig({ REQUEST_TIMEOUT_MS: '0', HEADERS_TIMEOUT_MS: '20000' }).timeouts, { requestMs: 0, headersMs: 20_000 })
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' }), (error: unknown) =>
      error instanceof ConfigError && /HEADERS_TIMEOUT_MS="6000": must be a whole number of milliseconds from 1 to REQUEST_TIMEOUT_MS \(5000\)/.test(error.message))
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' }), (error: unknown) => error instanceof ConfigError && /REQUEST_TIMEOUT_MS="soon"/.test(error.message))
  })
  it('reads the source map cache size', () => {
    assert.equal(loadConfig({}).sourceMapCacheBytes, 268_435_456)
    assert.equal(loadConfig({ SOURCEMAP_CACHE_BYTES: '0' }).sourceMapCacheBytes, 0)
    assert.throws(() => loadConfig({ SOURCEMAP_CACHE_BYTES: '256MB' }), (error: unknown) =>
      error instanceof ConfigError && /SOURCEMAP_CACHE_BYTES="256MB": must be a whole number of bytes/.test(error.message))
  })

  it('reads PUBLIC_URL as an http(s) URL without a trailing slash, and WEBHOOK_ALLOW_PRIVATE as a flag', () => {
    const d = loadConfig({})
    assert.deepEqual([d.publicUrl, d.webhooks.allowPrivate], [null, false])
    assert.equal(loadConfig({ PUBLIC_URL: 'https://sw.example.com/' }).publicUrl, 'https://sw.example.com')
    assert.equal(loadConfig({ PUBLIC_URL: 'http://example.com/tools/sessionwatch/' }).publicUrl, 'http://example.com/tools/sessionwatch')
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate, true)
    assert.ok(Object.isFrozen(d.webhooks))
    assert.throws(() => loadConfig({ PUBLIC_URL: 'sw.example.com', WEBHOOK_ALLOW_PRIVATE: 'yes' }), (error: unknown) =>
      error instanceof ConfigError && error.problems.length === 2 && /PUBLIC_URL="sw.example.com": must be an http:\/\/ or https:\/\/ URL/.test(error.message)
      && /WEBHOOK_ALLOW_PRIVATE="yes": must be true or false/.test(error.message))
    assert.throws(() => loadConfig({ PUBLIC_URL: 'ftp://sw.example.com' }), /must start with http:\/\/ or https:\/\//)
    assert.throws(() => loadConfig({ PUBLIC_URL: 'https://sw.example.com/?x=1' }), /without credentials, query or fragment/)
  })

  /** The problems of a configuration that must fail, as its ConfigError lists them. */
  const problemsOf = (env: Record<string, string>): readonly string[] => {
    try {
      loadConfig(env)
    } catch (error) {
      if (error instanceof ConfigError) return error.problems
      throw error
    }
    throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`)
  }
  const OIDC = { OIDC_ISSUER: 'https://id.example.com/realms/staff', OIDC_CLIENT_ID: 'sessionwatch', OIDC_CLIENT_SECRET: 's3cret-value', OIDC_ALLOWED_DOMAINS: 'Example.com, @example.org' }

  it('reads the OIDC settings: null without an issuer, defaults, and the domains lower-cased', () => {
    const off = loadConfig({})
    assert.deepEqual([off.oidc, off.passwordLogin], [null, true])
    const c = loadConfig(OIDC)
    assert.deepEqual(c.oidc, {
      issuer: 'https://id.example.com/realms/staff', clientId: 'sessionwatch', clientSecret: 's3cret-value',
      allowedDomains: ['example.com', 'example.org'], defaultRole: 'viewer', roleClaim: null,
    })
    assert.ok(Object.isFrozen(c.oidc))
    const d = loadConfig({ ...OIDC, OIDC_DEFAULT_ROLE: 'member', OIDC_ROLE_CLAIM: 'groups', PASSWORD_LOGIN: 'false' })
    assert.deepEqual([d.oidc?.defaultRole, d.oidc?.roleClaim, d.passwordLogin], ['member', 'groups', false])
  })

  it('names what an issuer lacks, and what is set without one, all at once', () => {
    assert.deepEqual(problemsOf({ OIDC_ISSUER: OIDC.OIDC_ISSUER }),
      ['OIDC_ISSUER is set, so OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ALLOWED_DOMAINS must be too (the client registered at the provider, and the email domains that may sign in)'])
    assert.deepEqual(problemsOf({ ...OIDC, OIDC_ALLOWED_DOMAINS: ' , ' }),
      ['OIDC_ALLOWED_DOMAINS=" , ": must list the email domains that may sign in, such as example.com,example.org (an empty list would allow nobody)'])
    assert.deepEqual(problemsOf({ OIDC_CLIENT_ID: 'x', OIDC_ROLE_CLAIM: 'groups', PASSWORD_LOGIN: 'false' }), [
      'OIDC_CLIENT_ID, OIDC_ROLE_CLAIM are set but OIDC_ISSUER is not: set it to the identity provider\'s issuer URL, or unset them',
      'PASSWORD_LOGIN=false needs OIDC_ISSUER: without single sign-on nobody could sign in',
    ])
  })

  it('refuses bad OIDC values, each once', () => {
    const problems = problemsOf({
      ...OIDC, OIDC_ISSUER: 'id.example.com', OIDC_CLIENT_SECRET: 'hunter2', OIDC_ALLOWED_DOMAINS: 'example.com,evil example.com',
      OIDC_DEFAULT_ROLE: 'root', OIDC_ROLE_CLAIM: 'my groups', PASSWORD_LOGIN: 'no',
    })
    assert.deepEqual(problems.map((p) => p.split(/[= ]/)[0]), ['OIDC_ISSUER', 'OIDC_ALLOWED_DOMAINS', 'OIDC_DEFAULT_ROLE', 'OIDC_ROLE_CLAIM', 'PASSWORD_LOGIN'])
    assert.match(problems.join('\n'), /not a domain: evil example\.com/)
    assert.match(problems.join('\n'), /OIDC_DEFAULT_ROLE="root": must be one of viewer, member, admin, owner/)
    assert.deepEqual(problemsOf({ ...OIDC, OIDC_ISSUER: 'https://u:p@id.example.com/?x=1' }).length, 1)
    assert.deepEqual(problemsOf({ ...OIDC, OIDC_ISSUER: 'ldap://id.example.com' }), ['OIDC_ISSUER="ldap://id.example.com": must start with https:// (or http:// for a provider on a trusted network)'])
    assert.equal(loadConfig({ ...OIDC, OIDC_ISSUER: 'http://keycloak:8080/realms/x' }).oidc?.issuer, 'http://keycloak:8080/realms/x')
  })

  it('reads SMTP_URL and SMTP_FROM, the sender by default at PUBLIC_URL\'s host, the password never echoed', () => {
    assert.equal(loadConfig({}).smtp, null)
    assert.deepEqual(loadConfig({ SMTP_URL: 'smtps://sw:pw@mail.example.com' }).smtp,
      { url: 'smtps://sw:pw@mail.example.com', from: 'Sessionwatch <sessionwatch@localhost>' })
    assert.deepEqual(loadConfig({ SMTP_URL: 'smtp://mail:2525', PUBLIC_URL: 'https://sw.example.com/tools' }).smtp?.from, 'Sessionwatch <sessionwatch@sw.example.com>')
    assert.equal(loadConfig({ SMTP_URL: 'smtp://mail', SMTP_FROM: 'Alerts <alerts@example.com>' }).smtp?.from, 'Alerts <alerts@example.com>')
    const problems = problemsOf({ SMTP_URL: 'http://u:hunter2@mail.example.com', SMTP_FROM: 'not an address' })
    assert.deepEqual(problems, [
      'SMTP_URL="http://u:***@mail.example.com": must start with smtp:// or smtps://',
      'SMTP_FROM="not an address": must be an address, or a name and an address: Sessionwatch <sessionwatch@example.com>',
    ])
    assert.deepEqual(problemsOf({ SMTP_FROM: 'sw@example.com' }), ['SMTP_FROM is set but SMTP_URL is not: set SMTP_URL to the server mail is sent through, or unset SMTP_FROM'])
  })

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ DATABASE_URL: 'mysql://x', PORT: 'eighty', TRUST_PROXY: 'maybe?', RETENTION_SWEEP_SECONDS: '-1', LOG_LEVEL: 'loud' })
      assert.fail('expected a ConfigError')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      assert.deepEqual(error.problems.map((p) => p.split('=')[0]), ['DATABASE_URL', 'PORT', 'TRUST_PROXY', 'RETENTION_SWEEP_SECONDS', 'LOG_LEVEL'])
      assert.match(error.message, /PORT="eighty": must be a port number/)
    }
  })
})
