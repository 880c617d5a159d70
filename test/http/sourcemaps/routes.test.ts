import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PassThrough } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { SOURCEMAP_MAX_CONCURRENT_UPLOADS } from '../../../src/sourcemaps/limits.ts'
import { UNAVAILABLE_RETRY_SECONDS } from '../../../src/errors.ts'
import type { InjectOptions } from 'fastify'
import { listMaps } from '../../../src/sourcemaps/service.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { buildBundle, type Bundle } from '../../helpers/bundle.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'
import { eventually } from '../../helpers/wait.ts'

interface Frame { function: string | null; file: string | null; line: number | null; column: number | null; mapped: boolean; inApp: boolean; context: { line: string } | null }
interface Detail { events: { type: string; stack: string | null; frames: Frame[] | null }[] }

const URL = 'https://shop.example/static/app.js'

for (const engine of testEngines()) {
  describe(`source map upload and read-time mapping [${engine}]`, () => {
    let t: TestApp
    let bundle: Bundle
    before(async () => {
      t = await startTestApp(engine)
      bundle = await buildBundle()
    })
    after(() => t.close())

    const upload = (query: string, payload: Buffer | string, headers: Record<string, string> = {}, key = t.project.uploadKey) =>
      t.app.inject({
        method: 'POST', url: `/upload/v1/sourcemaps?${query}`, payload: payload as InjectOptions['payload'],
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      })
    const errorOf = async (sessionKey: string, url = URL) => {
      const res = await t.ingest(batch(sessionKey, [
        { type: 'ERROR', message: 'TypeError: Cannot read properties of undefined', stack: bundle.stack(url) },
        { type: 'CLICK', message: 'button#buy' },
      ]))
      assert.equal(res.statusCode, 200, res.body)
      return json<{ sessionId: string }>(res).sessionId
    }
    const framesOf = async (sessionId: string) => {
      const detail = json<Detail>(await t.get(`/api/v1/sessions/${sessionId}`))
      const error = detail.events.find((e) => e.type === 'ERROR')
      assert.equal(detail.events.find((e) => e.type === 'CLICK')?.frames, null, 'an event without a stack has frames null')
      assert.ok(error?.frames)
      return { stack: error.stack, frames: error.frames }
    }
    const stored = async () => listMaps(t.app.db, t.project.id)

    it('maps events that arrived before the map was uploaded, at once', async () => {
      const sessionId = await errorOf('maps-later-1')
      const before = await framesOf(sessionId)
      assert.deepEqual(before.frames.map((f) => [f.function, f.mapped]), [['u', false], ['r', false], ['globalThis.run', false]])

      const res = await upload(`url=${encodeURIComponent(URL)}&release=2026.11.1`, bundle.map)
      assert.equal(res.statusCode, 201, res.body)
      const body = json(res)
      assert.deepEqual({ ...body, id: null, createdAt: null }, {
        id: null, url: URL, file: 'app.js.map', debugId: null, release: '2026.11.1', bytes: bundle.map.length, createdAt: null,
      })
      assert.match(String(body.id), /^sm_/)

      const afterUpload = await framesOf(sessionId)
      assert.equal(afterUpload.stack, before.stack, 'the stack stays as the browser sent it')
      assert.deepEqual(afterUpload.frames.slice(0, 2).map((f) => [f.function, f.file, f.line, f.column, f.mapped, f.inApp]), [
        ['applyCoupon', 'src/checkout.js', 10, 28, true, true],
        ['checkout', 'src/checkout.js', 4, 12, true, true],
      ])
      // A visit's events keep source context on the failing line only; the issue's latest event on every frame.
      assert.deepEqual(afterUpload.frames.map((f) => f.context?.line ?? null),
        ['  const code = user.coupon.code', null, null])
      const issueId = json<{ events: { type: string; issueId: string | null }[] }>(await t.get(`/api/v1/sessions/${sessionId}`))
        .events.find((e) => e.type === 'ERROR')?.issueId
      const issue = json<{ latestEvent: { event: { frames: Frame[] } } }>(await t.get(`/api/v1/issues/${String(issueId)}`))
      assert.deepEqual(issue.latestEvent.event.frames.map((f) => f.context?.line ?? null),
        ['  const code = user.coupon.code', '    return applyCoupon(user, total)', 'globalThis.run = () => checkout({ items: [{ price: 120 }] }, {})'])
    })

    it('uses a ~/path map for the same path on any host, the exact URL first', async () => {
      const other = 'https://cdn.example/static/app.js?v=3'
      const sessionId = await errorOf('maps-tilde-1', other)
      assert.equal((await framesOf(sessionId)).frames[0]?.mapped, false, 'the map of another host does not apply')
      const tilde = await upload('url=~/static/app.js', bundle.map)
      assert.equal(tilde.statusCode, 201, tilde.body)
      assert.equal(json(tilde).url, '~/static/app.js')
      assert.equal((await framesOf(sessionId)).frames[0]?.function, 'applyCoupon')
    })

    it('takes the map gzip-compressed and of any Content-Type, as CI scripts send it', async () => {
      const url = 'https://shop.example/static/gz.js'
      const gz = await upload(`url=${encodeURIComponent(url)}`, gzipSync(bundle.map), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' })
      assert.equal(gz.statusCode, 201, gz.body)
      assert.equal(json(gz).bytes, bundle.map.length)
      const form = await upload(`url=${encodeURIComponent(url)}`, bundle.map, { 'content-type': 'application/x-www-form-urlencoded' })
      assert.equal(form.statusCode, 201, form.body)
      assert.equal((await stored()).filter((m) => m.url === url).length, 1, 'the newer upload replaced the older')
      const br = await upload(`url=${encodeURIComponent(url)}`, bundle.map, { 'content-encoding': 'br' })
      assert.equal(br.statusCode, 415)
      assert.match(String(json(br).message), /Content-Encoding "br" is not accepted: send the map as is, or gzip-compressed/)
    })

    it('answers 400 naming the problem for a malformed map, and stores nothing', async () => {
      const before = await stored()
      const cases: [Buffer | string, RegExp][] = [
        ['{"version": 3, "sources": [', /is not JSON/],
        [JSON.stringify({ version: 2, sources: [], mappings: '' }), /"version" is 2; only version 3/],
        [JSON.stringify({ version: 3, sources: ['a.js'] }), /no "mappings" string/],
        [JSON.stringify({ version: 3, mappings: 'AAAA' }), /no "sources" array/],
        [JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: 'AAAA,ACAA' }), /name source 1, but "sources" has 1/],
        ['', /is empty/],
      ]
      for (const [payload, problem] of cases) {
        const res = await upload('url=https://shop.example/static/bad.js', payload)
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(json(res).code, 'invalid_body')
        assert.match(String(json(res).message), /^bad\.js\.map is not a valid source map: /)
        assert.match(String(json(res).message), problem)
      }
      const notGzip = await upload('url=https://shop.example/static/bad.js', bundle.map, { 'content-encoding': 'gzip' })
      assert.equal(notGzip.statusCode, 400)
      assert.match(String(json(notGzip).message), /not gzip/)
      assert.deepEqual(await stored(), before)
    })

    it('answers 400 for an upload without a body, naming the empty map', async () => {
      const res = await t.app.inject({ method: 'POST', url: `/upload/v1/sourcemaps?url=${URL}`, headers: { authorization: `Bearer ${t.project.uploadKey}` } })
      assert.equal(res.statusCode, 400, res.body)
      assert.match(String(json(res).message), /app\.js\.map is not a valid source map: it is empty/)
    })

    it('answers 400 for a url, release or debugId it cannot use', async () => {
      const id = '85314830-023f-4cf1-a267-535f4e37bb17'
      const withId = Buffer.from(JSON.stringify({ ...JSON.parse(bundle.map.toString()) as object, debugId: id }))
      const cases: [string, Buffer, string, RegExp][] = [
        ['url=static/app.js', bundle.map, 'url', /url must be the minified file's absolute URL .+ or ~\/path/],
        ['', bundle.map, 'url', /^url is required: Public URL of the minified file/],
        [`url=${URL}&release=${'r'.repeat(201)}`, bundle.map, 'release', /^release must be 1 to 200 characters \(got "r+"\)$/],
        [`url=${URL}&debugId=zz`, bundle.map, 'debugId', /^debugId must be a debug ID: a UUID such as .+ \(got "zz"\)$/],
        [`url=${URL}&debugId=${id.replace(/^8/, '9')}`, withId, 'debugId', new RegExp(`its debug ID is ${id}`)],
      ]
      for (const [query, payload, parameter, message] of cases) {
        const res = await upload(query, payload)
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
        assert.equal(json(res).parameter, parameter, query)
        assert.match(String(json(res).message), message)
      }
      const agreed = await upload(`url=${encodeURIComponent('https://shop.example/static/id.js')}&debugId=${id.toUpperCase()}`, withId)
      assert.equal(json(agreed).debugId, id)
    })

    it('needs the project upload key: 401 without it, with a wrong one, or with the ingest key', async () => {
      const anonymous = await t.app.inject({ method: 'POST', url: `/upload/v1/sourcemaps?url=${URL}`, payload: bundle.map })
      assert.equal(anonymous.statusCode, 401)
      assert.equal(json(anonymous).code, 'missing_api_key')
      assert.match(String(json(anonymous).message), /upload key/)
      for (const key of ['sw_upl_wrong', t.project.ingestKey]) {
        const res = await upload(`url=${URL}`, bundle.map, {}, key)
        assert.equal(res.statusCode, 401)
        assert.equal(json(res).code, 'invalid_api_key')
      }
    })

    it('refuses the API key, which only reads, with a message naming the upload key; and stores nothing', async () => {
      const before = await stored()
      const res = await upload(`url=${encodeURIComponent('https://shop.example/static/read-only.js')}`, bundle.map, {}, t.project.apiKey)
      assert.equal(res.statusCode, 401)
      assert.equal(json(res).code, 'invalid_api_key')
      assert.match(String(json(res).message), /API key \(sw_api_…\), which only reads: upload source maps with its upload key \(sw_upl_…\)/)
      assert.deepEqual(await stored(), before)
    })

    it('refuses the upload key on reads and on ingest: it only uploads', async () => {
      const read = await t.get('/api/v1/sessions', t.project.uploadKey)
      assert.equal(read.statusCode, 401)
      assert.equal(json(read).code, 'invalid_api_key')
      assert.match(String(json(read).message), /upload key \(sw_upl_…\), which only uploads source maps; read with its API key/)
      assert.equal((await t.get(`/api/v1/issues`, t.project.uploadKey)).statusCode, 401)
      const ingest = await t.app.inject({
        method: 'POST', url: '/ingest/v1/batch', payload: batch('upload-key-ingest-1', [{ type: 'CLICK', message: 'x' }]),
        headers: { 'x-ingest-key': t.project.uploadKey, 'content-type': 'application/json' },
      })
      assert.equal(ingest.statusCode, 401)
      assert.equal(json(ingest).code, 'invalid_ingest_key')
    })

    it('keeps each project\'s maps to itself', async () => {
      const other = await t.newProject('Other')
      const res = await t.app.inject({
        method: 'POST', url: `/upload/v1/sourcemaps?url=${encodeURIComponent('https://shop.example/static/mine.js')}`,
        payload: bundle.map, headers: { authorization: `Bearer ${other.uploadKey}` },
      })
      assert.equal(res.statusCode, 201)
      const sessionId = await errorOf('maps-foreign-1', 'https://shop.example/static/mine.js')
      assert.equal((await framesOf(sessionId)).frames[0]?.mapped, false)
    })

    it(`runs at most ${SOURCEMAP_MAX_CONCURRENT_UPLOADS} uploads at once: one more answers 503 with Retry-After before its body is read`, async () => {
      // Uploads whose bodies are still arriving hold their places.
      const slow = Array.from({ length: SOURCEMAP_MAX_CONCURRENT_UPLOADS }, () => new PassThrough())
      const running = slow.map((body, i) => t.app.inject({
        method: 'POST', url: `/upload/v1/sourcemaps?url=${encodeURIComponent(`https://shop.example/static/slow-${i}.js`)}`,
        payload: body, headers: { authorization: `Bearer ${t.project.uploadKey}`, 'content-type': 'application/octet-stream' },
      }))
      for (const body of slow) body.write(bundle.map.subarray(0, 10))
      // Each has taken its place once its first bytes are read: the place is taken before the body is.
      await eventually(() => Promise.resolve(slow.every((body) => body.readableLength === 0) || null), 'the uploads running')
      const refused = await upload(`url=${encodeURIComponent('https://shop.example/static/one-more.js')}`, bundle.map)
      assert.equal(refused.statusCode, 503, refused.body)
      assert.equal(json(refused).code, 'service_unavailable')
      assert.equal(refused.headers['retry-after'], String(UNAVAILABLE_RETRY_SECONDS))
      assert.match(String(json(refused).message), new RegExp(`${SOURCEMAP_MAX_CONCURRENT_UPLOADS} source map uploads are running`))
      for (const body of slow) body.end(bundle.map.subarray(10))
      assert.deepEqual((await Promise.all(running)).map((r) => r.statusCode), slow.map(() => 201))
      const again = await upload(`url=${encodeURIComponent('https://shop.example/static/one-more.js')}`, bundle.map)
      assert.equal(again.statusCode, 201, 'their places are given back')
    })

    it('accepts a map over 100 MB, and refuses one that inflates beyond 256 MiB with 413', async () => {
      const head = Buffer.from('{"version":3,"sources":["big.js"],"names":[],"mappings":"AAAA","sourcesContent":["')
      const big = Buffer.concat([head, Buffer.alloc(101 * 1024 * 1024, 'a'), Buffer.from('"]}')])
      const res = await upload(`url=${encodeURIComponent('https://shop.example/static/big.js')}`, big)
      assert.equal(res.statusCode, 201, res.body.slice(0, 500))
      assert.equal(json(res).bytes, big.length)
      const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024 + 1, ' '))
      const tooBig = await upload(`url=${encodeURIComponent('https://shop.example/static/bomb.js')}`, bomb, { 'content-encoding': 'gzip' })
      assert.equal(tooBig.statusCode, 413, tooBig.body)
      assert.equal(json(tooBig).code, 'payload_too_large')
      assert.match(String(json(tooBig).message), /256 MiB/)
    })
  })
}
