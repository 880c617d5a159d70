import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createProject, getProject, updateProject, type NewProject, type ProjectWithKeys } from '../../../src/projects/service.ts'
import { importSessions } from '../../../src/transfer/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'

type Detail = { session: { ip: string | null; country: string | null }; events: { reqBody: string | null; resBody: string | null }[] }

for (const engine of testEngines()) {
  describe(`ingest: a project's IP storage and masked fields [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    let keys = 0
    const project = (settings: Partial<NewProject> = {}) => createProject(t.app.db, { name: 'Private', domain: 'private.example', ...settings })
    /** Ingests one batch into `p` from `ip` and reads the visit back through the API, as a user would. */
    async function visitFrom(p: ProjectWithKeys, ip: string, events: Record<string, unknown>[] = [{ type: 'CLICK', message: 'a' }], key = `privacy-${keys++}-key`) {
      const res = await t.ingest(batch(key, events), { remoteAddress: ip, headers: { 'x-ingest-key': p.ingestKey } })
      assert.equal(res.statusCode, 200, res.body)
      return json<Detail>(await t.get(`/api/v1/sessions/${json<{ sessionId: string }>(res).sessionId}`, p.apiKey))
    }

    it('full (the default) stores the address as received', async () => {
      const s = (await visitFrom(await project(), '77.88.8.8')).session
      assert.deepEqual([s.ip, s.country], ['77.88.8.8', 'RU'])
    })

    it('truncated stores IPv4 to /24 and IPv6 to /48, a mapped IPv4 as IPv4, with the country of the full address', async () => {
      const p = await project({ ipStorage: 'truncated' })
      const v4 = (await visitFrom(p, '8.8.8.8')).session
      assert.deepEqual([v4.ip, v4.country], ['8.8.8.0', 'US'])
      const v6 = (await visitFrom(p, '2a02:6b8::feed:ff')).session
      assert.deepEqual([v6.ip, v6.country], ['2a02:6b8::', 'RU'])
      const mapped = (await visitFrom(p, '::ffff:77.88.8.8')).session
      assert.deepEqual([mapped.ip, mapped.country], ['77.88.8.0', 'RU'])
    })

    it('none stores no address, and still the country', async () => {
      const s = (await visitFrom(await project({ ipStorage: 'none' }), '8.8.8.8')).session
      assert.deepEqual([s.ip, s.country], [null, 'US'])
    })

    it('a change applies to visits from then on: stored addresses stay as they were', async () => {
      const p = await project()
      const before = await visitFrom(p, '77.88.8.8', [{ type: 'CLICK', message: 'a' }], 'privacy-change-key')
      assert.equal(before.session.ip, '77.88.8.8')
      await updateProject(t.app.db, p.id, { ipStorage: 'none' })
      const again = await visitFrom(p, '77.88.8.8', [{ type: 'CLICK', message: 'b' }], 'privacy-change-key')
      assert.equal(again.session.ip, '77.88.8.8', 'the visit keeps the address it was stored with')
      assert.equal((await visitFrom(p, '77.88.8.8')).session.ip, null, 'a new visit stores none')
    })

    it('masks the project\'s own field names in request and response bodies, besides the built-in ones', async () => {
      const p = await project({ maskFields: ['iban', 'Birth_Date'] })
      const events = [{
        type: 'HTTP_ERROR', url: 'https://private.example/api/pay', method: 'POST', statusCode: 500,
        reqBody: JSON.stringify({ name: 'Ann', IBAN: 'DE89370400440532013000', profile: { birth_date: '1990-01-01' }, password: 'pw' }),
        resBody: 'iban=DE89370400440532013000&ok=0',
      }]
      const [masked] = (await visitFrom(p, '10.0.0.1', events)).events
      assert.deepEqual(JSON.parse(masked?.reqBody ?? 'null'), { name: 'Ann', IBAN: '***', profile: { birth_date: '***' }, password: '***' })
      assert.equal(masked?.resBody, 'iban=***&ok=0')
      const [plain] = (await visitFrom(await project(), '10.0.0.1', events)).events
      assert.equal((JSON.parse(plain?.reqBody ?? 'null') as { IBAN: string }).IBAN, 'DE89370400440532013000', 'a project without the name keeps the value')
    })

    it('import applies the project\'s masked fields and IP storage as ingest does', async () => {
      const p = await project({ ipStorage: 'truncated', maskFields: ['iban'] })
      const at = new Date().toISOString()
      const line = JSON.stringify({
        id: 'imported-visit', sessionKey: 'imported-visit-key', startedAt: at, lastSeenAt: at, ip: '2001:db8:85a3:8d3::7', country: 'DE',
        events: [{ id: 'e1', type: 'CLICK', createdAt: at, message: 'x', reqBody: '{"iban":"DE89370400440532013000"}' }],
      })
      const report = await importSessions(t.app.db, await getProject(t.app.db, p.id), [line], t.app.recordings, { ipStorage: 'full' })
      assert.equal(report.imported, 1, JSON.stringify(report.bad))
      const d = json<Detail>(await t.get('/api/v1/sessions/imported-visit', p.apiKey))
      assert.deepEqual([d.session.ip, d.session.country, d.events[0]?.reqBody], ['2001:db8:85a3::', 'DE', '{"iban":"***"}'])
    })
  })

  describe(`ingest with IP_STORAGE=truncated [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine, { IP_STORAGE: 'truncated' }) })
    after(() => t.close())

    it('a project without its own setting follows the server; one with it keeps its own', async () => {
      let visits = 0
      const ip = async (p: ProjectWithKeys) => {
        const res = await t.ingest(batch(`server-default-${visits++}`, [{ type: 'CLICK', message: 'a' }]), { remoteAddress: '77.88.8.8', headers: { 'x-ingest-key': p.ingestKey } })
        return json<Detail>(await t.get(`/api/v1/sessions/${json<{ sessionId: string }>(res).sessionId}`, p.apiKey)).session.ip
      }
      assert.equal(await ip(t.project), '77.88.8.0')
      const full = await createProject(t.app.db, { name: 'Full', domain: 'full.example', ipStorage: 'full' })
      assert.equal(await ip(full), '77.88.8.8')
      await updateProject(t.app.db, full.id, { ipStorage: null })
      assert.equal(await ip(full), '77.88.8.0', 'back to the server default')
    })
  })
}
