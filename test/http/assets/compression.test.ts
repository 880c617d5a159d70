import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { SIZE_BUDGETS, gzipSize } from '../../../src/assets/budgets.ts'
import { startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'

for (const engine of testEngines()) {
  describe(`the SDK and its chunks served compressed [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    const budgets: Record<string, number> = { '/sdk.js': SIZE_BUDGETS['sdk.js'], '/sdk/recorder.js': SIZE_BUDGETS['recorder.js'], '/sdk/vitals.js': SIZE_BUDGETS['vitals.js'] }
    for (const path of ['/sdk.js', '/sdk/recorder.js', '/sdk/vitals.js', '/sdk.mjs', '/app/app.js']) {
      it(`${path}: brotli or gzip by Accept-Encoding, the same bytes once inflated, within the size budget`, async () => {
        const get = (encoding?: string) => t.app.inject({ method: 'GET', url: path, headers: encoding === undefined ? {} : { 'accept-encoding': encoding } })
        const plain = await get()
        assert.equal(plain.statusCode, 200)
        assert.equal(plain.headers['content-encoding'], undefined)
        assert.equal(plain.headers.vary, 'Accept-Encoding')
        const br = await get('gzip, deflate, br')
        assert.equal(br.headers['content-encoding'], 'br')
        assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
        const gz = await get('gzip')
        assert.equal(gz.headers['content-encoding'], 'gzip')
        assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body)
        assert.equal(gz.headers.etag, plain.headers.etag, 'one ETag: the content hash')
        const budget = budgets[path]
        if (budget !== undefined) {
          assert.ok(gz.rawPayload.length <= budget, `${path}: ${gz.rawPayload.length} B gzipped on the wire`)
          assert.ok(br.rawPayload.length < gz.rawPayload.length && gz.rawPayload.length <= gzipSize(plain.body) + 32)
        }
      })
    }
  })
}
