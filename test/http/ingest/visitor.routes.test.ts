import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MAX_META_KEY_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH } from '../../../common/limits.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { batch } from '../../helpers/factories.ts'
import { testEngines } from '../../helpers/engines.ts'

const click = [{ type: 'CLICK', message: 'button' }]
const many = (n: number, value: string | number = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]))

for (const engine of testEngines()) {
  describe(`ingest: who the visitor is [${engine}]`, () => {
    let t: TestApp
    before(async () => { t = await startTestApp(engine) })
    after(() => t.close())

    it('accepts a user with traits, tags, release and environment within their limits', async () => {
      const res = await t.ingest(batch('who-ok-1', click, {
        user: { id: 'u'.repeat(MAX_USER_ID_LENGTH), traits: { ...many(MAX_TRAITS - 2), n: 1.5, b: true } }, tags: many(MAX_TAGS),
        release: 'r1', environment: 'staging',
      }))
      assert.equal(res.statusCode, 200, res.body)
    })

    it('refuses, naming the field, what the limits do not allow', async () => {
      for (const [extra, field] of [
        [{ user: { id: '' } }, 'user'],
        [{ user: { id: 'u'.repeat(MAX_USER_ID_LENGTH + 1) } }, 'user'],
        [{ user: { id: 'u', traits: many(MAX_TRAITS + 1) } }, 'traits'],
        [{ user: { id: 'u', traits: { 'bad key': 'v' } } }, 'traits'],
        [{ user: { id: 'u', traits: { ['k'.repeat(MAX_META_KEY_LENGTH + 1)]: 'v' } } }, 'traits'],
        [{ user: { id: 'u', traits: { nested: { a: 1 } } } }, 'traits'],
        [{ tags: many(MAX_TAGS + 1) }, 'tags'],
        [{ tags: { 'a/b': 'v' } }, 'tags'],
        [{ tags: { n: 5 } }, 'tags'],
        [{ release: '' }, 'release'],
        [{ environment: 'e'.repeat(65) }, 'environment'],
      ] as const) {
        const res = await t.ingest(batch('who-bad-1', click, extra))
        assert.equal(res.statusCode, 400, `${JSON.stringify(extra).slice(0, 80)}: ${res.body}`)
        assert.match(json<{ message: string }>(res).message, new RegExp(field), `${JSON.stringify(extra).slice(0, 80)} names ${field}`)
      }
    })

    it('refuses __proto__ keys alike in application/json and in text/plain (beacon) bodies', async () => {
      const body = `{"sessionKey":"who-proto-1","batchId":"b1","events":[],"tags":{"__proto__":"x"}}`
      for (const type of ['application/json', 'text/plain']) {
        const res = await t.ingest(body, { headers: { 'content-type': type } })
        assert.equal(res.statusCode, 400, `${type}: ${res.body}`)
      }
    })
  })
}
