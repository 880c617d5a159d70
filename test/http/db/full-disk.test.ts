/**
 * A full disk, for real: the database on a small tmpfs (a tablespace on one, for PostgreSQL),
 * filled by ingest until writes fail, then given room again while the service keeps running.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import { createProject, type ProjectWithKeys } from '../../../src/projects/service.ts'
import { SENTRY_RETRY_SECONDS } from '../../../src/errors.ts'
import { json } from '../../helpers/app.ts'
import { envelope, errorEvent } from '../../helpers/sentry.ts'
import { testEngines } from '../../helpers/engines.ts'
import { createSmallDiskDatabase, smallDiskUnavailable, type SmallDisk } from '../../helpers/small-disk.ts'

const skip = smallDiskUnavailable() ?? false

for (const engine of testEngines()) {
  describe(`a full disk [${engine}]`, { skip }, () => {
    let disk: SmallDisk
    let app: FastifyInstance
    let project: ProjectWithKeys
    const logs: Record<string, unknown>[] = []

    before(async () => {
      disk = await createSmallDiskDatabase(engine, 3)
      const config = loadConfig({ DATABASE_URL: disk.url, RETENTION_SWEEP_SECONDS: '0' })
      const stream = { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>) } }
      app = await buildApp({ config, logger: { level: 'info', stream } })
      project = await createProject(app.db, { name: 'Full', domain: 'full.example' })
    })
    after(async () => {
      await app.close()
      await disk.cleanup()
    })

    const send = (i: number) => app.inject({
      method: 'POST', url: '/ingest/v1/batch', headers: { 'x-ingest-key': project.ingestKey },
      payload: { sessionKey: `full-disk-${i}`, batchId: 'b1', events: Array.from({ length: 25 }, () => ({
        // Incompressible, so PostgreSQL's TOAST compression does not make the disk last forever.
        type: 'ERROR', message: randomBytes(3000).toString('base64'),
      })) },
    })

    it('answers 503 storage_full with Retry-After, logs the cause once, and loses nothing acknowledged', async () => {
      const acknowledged: number[] = []
      const refused: number[] = []
      for (let i = 0; refused.length < 25 && i < 5000; i++) {
        const res = await send(i)
        if (res.statusCode === 200) {
          acknowledged.push(i)
          continue
        }
        assert.equal(res.statusCode, 503, res.body)
        assert.equal(json(res).code, 'storage_full')
        assert.equal(res.headers['retry-after'], '30')
        refused.push(i)
      }
      assert.ok(acknowledged.length > 0 && refused.length === 25, `${acknowledged.length} stored before the disk filled`)

      const faults = logs.filter((l) => l.level === 50)
      assert.equal(faults.length, 1, `one error line for ${refused.length} refused requests: ${JSON.stringify(faults)}`)
      assert.match(String(faults[0]?.msg), /disk is full/)
      assert.equal(faults[0]?.code, engine === 'sqlite' ? 'SQLITE_FULL' : '53100')

      // A Sentry SDK is told to back off (429 with its rate-limit headers), never a 5xx, which it would count as lost.
      const eventId = randomBytes(16).toString('hex')
      const sentry = () => app.inject({
        method: 'POST', url: `/api/${project.sentryProjectId}/envelope/?sentry_key=${project.dsnKey}`, headers: { 'content-type': 'text/plain' },
        // As large as a refused batch: 25 incompressible breadcrumbs besides the error.
        payload: envelope({ event_id: eventId }, [[{ type: 'event' }, errorEvent(eventId, { breadcrumbs: Array.from({ length: 25 }, (_, i) => ({
          timestamp: Date.now() / 1000 - i, category: 'ui.click', message: randomBytes(3000).toString('base64'),
        })) })]]),
      })
      const busy = await sentry()
      assert.equal(busy.statusCode, 429, busy.body)
      assert.equal(json(busy).code, 'rate_limited')
      assert.equal(busy.headers['retry-after'], String(SENTRY_RETRY_SECONDS))
      assert.equal(busy.headers['x-sentry-rate-limits'], `${SENTRY_RETRY_SECONDS}::organization:service_unavailable`)

      const health = await app.inject({ url: '/healthz' })
      assert.equal(health.statusCode, 503)
      assert.deepEqual(json(health), { status: 'unavailable', database: 'ok', storage: 'full', engine })

      // Space comes back: the same service takes the refused batches (the SDK retries them) and more.
      disk.grow(64)
      for (const i of refused) assert.equal((await send(i)).statusCode, 200)
      assert.equal((await send(9999)).statusCode, 200)
      assert.equal((await sentry()).statusCode, 200, 'the SDK\'s retry is stored')
      const healthy = await app.inject({ url: '/healthz' })
      assert.equal(healthy.statusCode, 200)
      assert.equal(json(healthy).storage, 'ok')
      assert.ok(logs.some((l) => l.msg === 'database writable again'))

      if (engine === 'sqlite') {
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(app.db)
        assert.deepEqual(check.rows, [{ integrity_check: 'ok' }])
      }
      // Every acknowledged batch is there exactly once, and the counters agree with the rows.
      // …and the Sentry visit with its 26 events (the error and its breadcrumbs).
      const stored = [...acknowledged, ...refused, 9999]
      const list = await app.inject({ url: '/api/v1/sessions?limit=1', headers: { authorization: `Bearer ${project.apiKey}` } })
      assert.equal(json<{ total: number }>(list).total, stored.length + 1)
      const events = await app.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      assert.equal(events.n, stored.length * 25 + 26)
      const totals = await app.db.selectFrom('sessions').select((eb) => eb.fn.sum<number>('events_total').as('n')).executeTakeFirstOrThrow()
      assert.equal(totals.n, stored.length * 25 + 26)
      assert.ok(!logs.some((l) => /cannot rollback/.test(JSON.stringify(l))), 'the real cause is never hidden')
    })
  })
}
