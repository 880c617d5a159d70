import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'

/** Shortened deadlines, so the test waits a second where production waits 30. */
const REQUEST_TIMEOUT_MS = 1500
const HEADERS_TIMEOUT_MS = 700

interface RawAnswer { status: number; body: string; ms: number }

/**
 * Sends `head` at once, then `trickle` one byte every `everyMs` on a raw socket (inject() cannot trickle), and
 * reads whatever answer comes before the server closes the connection.
 */
function trickle(port: number, head: string, trickled: string, everyMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let sent = 0
    let timer: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      socket.write(head)
      timer = setInterval(() => {
        if (sent < trickled.length && socket.writable) socket.write(trickled[sent++] ?? '')
      }, everyMs)
    })
    socket.on('data', (data) => chunks.push(data))
    socket.on('error', () => { /* the server may reset the connection after its answer: the answer is what counts */ })
    socket.on('close', () => {
      clearInterval(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
      if (!status) reject(new Error(`no answer before the connection closed: ${JSON.stringify(text)}`))
      else resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4), ms: performance.now() - started })
    })
  })
}

for (const engine of testEngines()) {
  describe(`deadlines for slow requests [${engine}]`, () => {
    let t: TestApp
    let port: number
    before(async () => {
      t = await startTestApp(engine, { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) })
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      port = (t.app.server.address() as net.AddressInfo).port
    })
    after(() => t.close())

    const sessionKeys = async (): Promise<string[]> =>
      json<{ sessions: { sessionKey: string }[] }>(await t.get('/api/v1/sessions?limit=200')).sessions.map((s) => s.sessionKey)

    it('a trickled ingest body is answered 408 request_timeout at its deadline, and nothing of it is stored', async () => {
      const body = JSON.stringify({ sessionKey: 'trickled-visit', batchId: 'slow-1', events: [{ type: 'NAVIGATION', createdAt: Date.now(), url: 'https://shop.example/' }] })
      const head = `POST /ingest/v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Ingest-Key: ${t.project.ingestKey}\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`
      // The whole body would arrive after 100 ms × its length (~11 s): well past the deadline.
      const answer = await trickle(port, head, body.slice(20), 100)
      assert.equal(answer.status, 408, answer.body)
      assert.equal((JSON.parse(answer.body) as { code: string }).code, 'request_timeout')
      assert.ok(answer.ms >= REQUEST_TIMEOUT_MS - 50 && answer.ms < REQUEST_TIMEOUT_MS + 1500, `${answer.ms} ms`)
      assert.ok(!(await sessionKeys()).includes('trickled-visit'))
    })

    it('trickled headers are answered 408 at the header deadline', async () => {
      const answer = await trickle(port, 'GET /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1234567890123456789012345678901234567890', 50)
      assert.equal(answer.status, 408, answer.body)
      assert.equal((JSON.parse(answer.body) as { code: string }).code, 'request_timeout')
      assert.ok(answer.ms >= HEADERS_TIMEOUT_MS - 50 && answer.ms < REQUEST_TIMEOUT_MS, `${answer.ms} ms`)
    })

    it('a request that arrives within the deadlines is answered as usual', async () => {
      const body = JSON.stringify({ sessionKey: 'prompt-visit', batchId: 'prompt-1', events: [{ type: 'NAVIGATION', createdAt: Date.now(), url: 'https://shop.example/' }] })
      const head = `POST /ingest/v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Ingest-Key: ${t.project.ingestKey}\r\n`
        + `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, -5)}`
      const answer = await trickle(port, head, body.slice(-5), 50)
      assert.equal(answer.status, 200, answer.body)
      assert.ok((await sessionKeys()).includes('prompt-visit'))
    })
  })
}
