import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import { classifyDatabaseError, retrying } from '../../../src/db/errors.ts'
import { createDatabaseStatus } from '../../../src/db/status.ts'

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code })

describe('classifyDatabaseError', () => {
  it('tells deadlocks, outages and a full disk apart on both engines', () => {
    assert.equal(classifyDatabaseError(coded('40P01')), 'retryable')
    assert.equal(classifyDatabaseError(coded('40001')), 'retryable')
    assert.equal(classifyDatabaseError(coded('SQLITE_FULL', 'database or disk is full')), 'full')
    assert.equal(classifyDatabaseError(coded('53100', 'could not extend file')), 'full')
    assert.equal(classifyDatabaseError(coded('53300', 'too many connections')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('57P01', 'terminating connection due to administrator command')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('08006')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('57014', 'canceling statement due to statement timeout')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('55P03', 'canceling statement due to lock timeout')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('ECONNREFUSED')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('SQLITE_BUSY')), 'unavailable')
    assert.equal(classifyDatabaseError(new Error('Connection terminated unexpectedly')), 'unavailable')
    assert.equal(classifyDatabaseError(coded('23505', 'duplicate key')), null)
    assert.equal(classifyDatabaseError(new Error('a bug')), null)
    assert.equal(classifyDatabaseError('not an error'), null)
  })
})

describe('retrying', () => {
  it('runs a transaction again after a deadlock or a serialization failure, three tries in all; any other failure at once', async () => {
    const failing = (errors: Error[]) => {
      let calls = 0
      const work = () => {
        const error = errors[calls++]
        return error === undefined ? Promise.resolve('done') : Promise.reject(error)
      }
      return { work, calls: () => calls }
    }
    const twice = failing([coded('40P01'), coded('40001')])
    assert.equal(await retrying(twice.work), 'done')
    assert.equal(twice.calls(), 3)
    const always = failing([coded('40P01'), coded('40P01'), coded('40P01'), coded('40P01')])
    await assert.rejects(retrying(always.work), { code: '40P01' })
    assert.equal(always.calls(), 3, 'the third failure is thrown')
    const outage = failing([coded('57P01')])
    await assert.rejects(retrying(outage.work), { code: '57P01' })
    assert.equal(outage.calls(), 1, 'an outage is not a deadlock: thrown at once')
    const bug = failing([new Error('a bug')])
    await assert.rejects(retrying(bug.work), /a bug/)
    assert.equal(bug.calls(), 1)
  })
})

function recordingLogger() {
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = []
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => { lines.push({ level, msg, obj }) }
  return { lines, log: { error: at('error'), info: at('info') } as unknown as FastifyBaseLogger }
}

describe('database status', () => {
  it('logs a full disk once per episode, with its cause, however many requests fail', () => {
    const { lines, log } = recordingLogger()
    let now = 0
    const status = createDatabaseStatus(log, () => now)
    for (let i = 0; i < 50; i++) {
      now += 100
      assert.equal(status.failed(coded('SQLITE_FULL', 'database or disk is full')), 'full')
    }
    assert.equal(lines.length, 1)
    const [line] = lines
    assert.ok(line)
    assert.equal(line.level, 'error')
    assert.equal(line.obj.code, 'SQLITE_FULL')
    assert.match(line.msg, /disk is full/)
    assert.equal(status.storageFull(), true)
  })

  it('reports a full disk until a write succeeds, flapping at the edge stays one episode', () => {
    const { lines, log } = recordingLogger()
    let now = 0
    const status = createDatabaseStatus(log, () => now)
    status.failed(coded('53100'))
    status.reachable()
    assert.equal(status.storageFull(), true, 'a read answering says nothing of space')
    status.written()
    assert.equal(status.storageFull(), false)
    now += 1000
    status.failed(coded('53100'))
    assert.equal(status.storageFull(), true)
    status.written()
    assert.deepEqual(lines.map((l) => l.level), ['error', 'info'], 'one start, one recovery')
    now += 120_000
    status.failed(coded('53100'))
    assert.equal(lines.length, 3, 'a failure long after the last starts a new episode')
  })

  it('stops reporting a full disk that no write has tried for 30 s', () => {
    let now = 0
    const status = createDatabaseStatus(recordingLogger().log, () => now)
    status.failed(coded('SQLITE_FULL'))
    now += 30_001
    assert.equal(status.storageFull(), false)
  })

  it('ends an outage when the database answers again, and ignores errors that are not faults', () => {
    const { lines, log } = recordingLogger()
    const status = createDatabaseStatus(log, () => 0)
    assert.equal(status.failed(new Error('a bug')), null)
    assert.equal(status.failed(coded('ECONNREFUSED')), 'unavailable')
    assert.equal(status.failed(coded('57P01')), 'unavailable')
    status.reachable()
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
      ['error', 'database unreachable: requests answer 503 service_unavailable until it answers again'],
      ['info', 'database reachable again'],
    ])
    assert.equal(status.storageFull(), false)
  })
})
