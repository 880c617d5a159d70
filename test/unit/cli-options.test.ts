import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { args, PROJECT_FIELDS, projectFields, UsageError } from '../../src/cli-options.ts'

const fields = (...argv: string[]) => projectFields(args(argv, PROJECT_FIELDS).values)

describe('CLI project options', () => {
  it('read the ingest limits: --rate-limit N|default and --daily-quota N|none', () => {
    assert.deepEqual(fields('--rate-limit', '50', '--daily-quota', '100000'), { ingestRateLimit: 50, dailyEventQuota: 100_000 })
    assert.deepEqual(fields('--rate-limit', '0'), { ingestRateLimit: 0 }, '0: no limit for this project')
    assert.deepEqual(fields('--rate-limit', 'default', '--daily-quota', 'none'), { ingestRateLimit: null, dailyEventQuota: null })
    assert.throws(() => fields('--rate-limit', 'fast'), (e: unknown) => e instanceof UsageError && /--rate-limit must be a whole number of requests per second/.test(e.message))
    assert.throws(() => fields('--daily-quota', '1e6'), (e: unknown) => e instanceof UsageError && /--daily-quota must be a whole number of events per UTC day or none/.test(e.message))
  })
})
