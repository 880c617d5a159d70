import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getProject } from '../../src/projects/service.ts'
import { importSessions } from '../../src/transfer/service.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { testEngines } from '../helpers/engines.ts'

const engines = testEngines()

describe('the engines answer byte for byte alike', { skip: engines.length < 2 ? 'needs both engines' : false }, () => {
  const apps: TestApp[] = []
  // Identifiers a locale collation would order differently from bytes; equal lastSeenAt makes id decide.
  const ids = ['a-b', 'a_b', 'A-b', 'ab', 'Zed', 'zed', '_x', '-x', 'b9', 'B10']
  const at = new Date(Date.now() - 3_600_000).toISOString()
  const lines = ids.map((id, i) => JSON.stringify({
    id, sessionKey: `key-${id}`, startedAt: at, lastSeenAt: at, ip: i % 2 ? '8.8.8.8' : null, country: i % 2 ? 'US' : null,
    userAgent: 'UA', utm: i % 3 ? null : { utm_source: 'x' }, events: [
      { id: 'e1', type: 'ERROR', createdAt: at, message: 'm', stack: 's' },
      { id: 'e2', type: 'HTTP_ERROR', createdAt: at, url: 'https://x/', method: 'POST', statusCode: 503, durationMs: 12.75, reqBody: '{"password":"***"}', resBody: 'r' },
      { id: 'e3', type: 'SLOW_REQUEST', createdAt: at, url: 'https://x/a.js', durationMs: 4000 },
    ],
  }))

  before(async () => {
    for (const engine of engines) {
      const t = await startTestApp(engine)
      await importSessions(t.app.db, await getProject(t.app.db, t.project.id), lines, t.app.recordings)
      apps.push(t)
    }
  })
  after(async () => { for (const t of apps) await t.close() })

  /**
   * The raw body, with the one thing that differs by design — the project — blanked out: in ids, and in a
   * `next` cursor, whose list fingerprint hashes the project id (shown decoded, without it).
   */
  const body = async (t: TestApp, url: string) => {
    const res = await t.get(url)
    assert.equal(res.statusCode, 200, res.body)
    return res.body.replaceAll(t.project.id, 'PROJECT').replace(/"next":"([A-Za-z0-9_-]+)"/, (_, cursor: string) => {
      const [version, , ...rest] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
      return `"next":${JSON.stringify([version, 'LIST', ...rest])}`
    })
  }

  const urls = ['/api/v1/sessions', '/api/v1/sessions?limit=3&offset=2', `/api/v1/sessions?date=${at.slice(0, 10)}`,
    `/api/v1/sessions?from=${at.slice(0, 10)}`, ...ids.map((id) => `/api/v1/sessions/${id}`)]
  for (const url of urls) {
    it(url, async () => {
      const [first, ...rest] = apps
      assert.ok(first)
      const expected = await body(first, url)
      for (const t of rest) assert.equal(await body(t, url), expected)
    })
  }

  it('pages by cursor alike: after= walks the ids in byte order on both', async () => {
    const walks: string[][] = []
    for (const t of apps) {
      const pages: string[] = []
      let next: string | null = ''
      while (next !== null) {
        const res = await t.get(`/api/v1/sessions?limit=3${next ? `&after=${next}` : ''}`)
        assert.equal(res.statusCode, 200, res.body)
        next = res.json<{ next: string | null }>().next
        pages.push(res.body.replaceAll(t.project.id, 'PROJECT').replace(/"next":"[^"]*"/, '"next":"…"'))
      }
      walks.push(pages)
    }
    const [first, ...rest] = walks
    assert.equal(first?.length, 4)
    for (const w of rest) assert.deepEqual(w, first)
  })

  it('orders ids by bytes', async () => {
    const [first] = apps
    assert.ok(first)
    const listed = (JSON.parse(await body(first, '/api/v1/sessions')) as { sessions: { id: string }[] }).sessions.map((s) => s.id)
    assert.deepEqual(listed, [...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)))
  })
})
