import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MAX_ENVIRONMENT_LENGTH, MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH, MAX_RELEASE_LENGTH, MAX_TAGS, MAX_TRAITS, MAX_USER_ID_LENGTH,
} from '../../../../common/limits.ts'
import { labelsOf } from '../../../../browser/sdk/api.ts'
import { makeVisitor, text, userOf } from '../../../../browser/sdk/visitor.ts'
import { sdkInNode, serverAccepts, settle } from '../../../helpers/sdk.ts'

const hostile = new Proxy({}, { get() { throw new Error('trap') }, ownKeys() { throw new Error('trap') } })
/** n valid traits or tags: k0 … k(n-1). */
const many = (n: number, value: (i: number) => unknown = (i) => `v${i}`) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]))

describe('SDK identify, setTags, release and environment', () => {
  it('every batch of events carries the user, the tags, the release and the environment, as the server accepts them', async () => {
    const sdk = sdkInNode()
    sdk.init({ release: 'shop@1.4.2', environment: 'production' })
    sdk.identify('user-42', { plan: 'pro', seats: 3, trial: false })
    sdk.setTags({ region: 'eu', ab: 'b' })
    sdk.report('first')
    await settle()
    sdk.core().record({ type: 'CLICK', message: 'button#buy' })
    sdk.core().flushOnHide()
    const [post] = sdk.transport.posts
    const [beacon] = sdk.transport.beacons
    for (const batch of [post, beacon]) {
      assert.ok(batch)
      assert.deepEqual(batch.user, { id: 'user-42', traits: { plan: 'pro', seats: 3, trial: false } })
      assert.deepEqual(batch.tags, { region: 'eu', ab: 'b' })
      assert.equal(batch.release, 'shop@1.4.2')
      assert.equal(batch.environment, 'production')
      const checked = structuredClone(batch)
      assert.deepEqual(serverAccepts(checked).valid, true)
      assert.deepEqual(checked, batch, 'nothing was left for the server to strip')
    }
  })

  it('calls made before init are kept and applied at init; later calls reach later batches', async () => {
    const sdk = sdkInNode()
    sdk.identify('early', { plan: 'free' })
    sdk.setTags({ region: 'eu' })
    sdk.report('before init: nothing to record into')
    sdk.init({})
    sdk.report('one')
    await settle()
    sdk.setTags({ ab: 'a' })
    sdk.identify(7)
    sdk.report('two')
    await settle()
    const [one, two] = sdk.transport.posts
    assert.ok(one && two)
    assert.deepEqual(one.user, { id: 'early', traits: { plan: 'free' } })
    assert.deepEqual(one.tags, { region: 'eu' })
    assert.deepEqual(one.events.map((e) => e.message), ['one'])
    assert.deepEqual(two.user, { id: '7' }, 'the last call wins, its traits included: none')
    assert.deepEqual(two.tags, { region: 'eu', ab: 'a' })
  })

  it('sends no user, tags, release or environment when there are none', async () => {
    const sdk = sdkInNode()
    sdk.init({ release: '', environment: undefined })
    sdk.setTags({ only: 'x' })
    sdk.setTags({ only: null })
    sdk.report('plain')
    await settle()
    const [batch] = sdk.transport.posts
    assert.ok(batch)
    for (const field of ['user', 'tags', 'release', 'environment']) assert.equal(field in batch, false, field)
  })

  it('sanitizes the user: id as text, cut, empty ignored; invalid traits dropped, values cut, the first MAX_TRAITS kept', () => {
    assert.deepEqual(userOf(42, undefined), { id: '42' })
    assert.equal(userOf('u'.repeat(MAX_USER_ID_LENGTH + 10), null)?.id.length, MAX_USER_ID_LENGTH)
    for (const empty of ['', null, undefined]) assert.equal(userOf(empty, { plan: 'pro' }), null)
    const user = userOf('u1', {
      plan: 'pro', 'org.id:eu-1': 'acme', seats: 3, ratio: -0.5, admin: true, nan: Number.NaN, inf: Infinity, none: null,
      missing: undefined, obj: { a: 1 }, list: ['a'], big: 10n, fn: () => 1, 'bad key': 'x', 'ünïcode': 'x', '': 'x',
      ['k'.repeat(MAX_META_KEY_LENGTH + 1)]: 'long key', ['k'.repeat(MAX_META_KEY_LENGTH)]: 'longest key', long: 'v'.repeat(MAX_META_VALUE_LENGTH + 5),
      ...JSON.parse('{"__proto__": "poison"}') as object,
    })
    assert.deepEqual(user, {
      id: 'u1',
      traits: {
        plan: 'pro', 'org.id:eu-1': 'acme', seats: 3, ratio: -0.5, admin: true, ['k'.repeat(MAX_META_KEY_LENGTH)]: 'longest key',
        long: 'v'.repeat(MAX_META_VALUE_LENGTH),
      },
    })
    assert.equal(Object.getPrototypeOf(user.traits), Object.prototype, 'no prototype was set through __proto__')
    const capped = userOf('u2', { 'bad key': 1, ...many(MAX_TRAITS + 5) })
    assert.deepEqual(Object.keys(capped?.traits ?? {}), Object.keys(many(MAX_TRAITS)), 'the first valid ones')
    const poisoned = userOf('u2', { ...JSON.parse('{"__proto__": "poison"}') as object, ...many(MAX_TRAITS) })
    assert.equal(Object.keys(poisoned?.traits ?? {}).length, MAX_TRAITS, '__proto__ takes no trait\'s place')
    assert.deepEqual(userOf('u3', { nan: Number.NaN, obj: {} }), { id: 'u3' }, 'no traits left: none sent')
    for (const traits of ['pro', 42, true, []]) assert.deepEqual(userOf('u4', traits), { id: 'u4' })
    assert.equal(serverAccepts({ sessionKey: 'abcdefgh12', batchId: 'b1', events: [], user }).valid, true)
    assert.equal(serverAccepts({ sessionKey: 'abcdefgh12', batchId: 'b1', events: [], user: capped }).valid, true)
  })

  it('cuts text without splitting a character the server counts as one', () => {
    const emoji = '😀'
    assert.equal(text(`${'a'.repeat(4)}${emoji}`, 5), 'aaaa', 'a cut through a surrogate pair drops the pair')
    assert.equal(text(`${'a'.repeat(3)}${emoji}`, 5), `aaa${emoji}`)
    assert.equal(text(null, 5), '')
    const id = userOf(emoji.repeat(MAX_USER_ID_LENGTH), null)?.id ?? ''
    assert.equal(serverAccepts({ sessionKey: 'abcdefgh12', batchId: 'b1', events: [], user: { id } }).valid, true)
  })

  it('identify: the last call wins, an empty id changes nothing', () => {
    const visitor = makeVisitor()
    visitor.identify('a', { plan: 'pro' })
    visitor.identify('', { plan: 'free' })
    assert.deepEqual(visitor.fields().user, { id: 'a', traits: { plan: 'pro' } })
    visitor.identify('b', undefined)
    assert.deepEqual(visitor.fields().user, { id: 'b' })
  })

  it('setTags merges, takes values as text cut to their limit, drops invalid keys and new keys beyond MAX_TAGS, removes on null', () => {
    const visitor = makeVisitor()
    visitor.setTags({ region: 'eu', n: 5, flag: true, 'bad key': 'x', ['k'.repeat(MAX_META_KEY_LENGTH + 1)]: 'x', long: 'v'.repeat(MAX_META_VALUE_LENGTH + 1) })
    visitor.setTags({ ...JSON.parse('{"__proto__": "poison"}') as object, constructor: 'c' })
    assert.deepEqual(visitor.fields().tags, { region: 'eu', n: '5', flag: 'true', long: 'v'.repeat(MAX_META_VALUE_LENGTH), constructor: 'c' })
    visitor.setTags({ n: null, flag: undefined, constructor: null })
    visitor.setTags(many(MAX_TAGS + 3))
    const tags = visitor.fields().tags ?? {}
    assert.equal(Object.keys(tags).length, MAX_TAGS)
    assert.deepEqual(Object.keys(tags), ['region', 'long', ...Object.keys(many(MAX_TAGS - 2))], 'new keys beyond the cap are dropped')
    visitor.setTags({ region: 'us', extra: 'no room' })
    assert.equal(visitor.fields().tags?.region, 'us', 'an existing key still changes at the cap')
    assert.equal(visitor.fields().tags?.extra, undefined)
    visitor.setTags({ region: null })
    visitor.setTags({ extra: 'room again' })
    assert.equal(visitor.fields().tags?.extra, 'room again')
    for (const update of [null, undefined, 'region=eu', 42]) visitor.setTags(update)
    assert.equal(Object.keys(visitor.fields().tags ?? {}).length, MAX_TAGS)
    assert.equal(serverAccepts({ sessionKey: 'abcdefgh12', batchId: 'b1', events: [], tags: visitor.fields().tags }).valid, true)
  })

  it('release and environment: cut to their limits, left out when empty', () => {
    assert.deepEqual(labelsOf({ release: 'r'.repeat(MAX_RELEASE_LENGTH + 1), environment: 'e'.repeat(MAX_ENVIRONMENT_LENGTH + 1) }), {
      release: 'r'.repeat(MAX_RELEASE_LENGTH), environment: 'e'.repeat(MAX_ENVIRONMENT_LENGTH),
    })
    assert.deepEqual(labelsOf({ release: '', environment: undefined }), { release: undefined, environment: undefined })
    const labels = labelsOf({ release: 'r'.repeat(MAX_RELEASE_LENGTH + 1), environment: 'e'.repeat(MAX_ENVIRONMENT_LENGTH + 1) })
    assert.equal(serverAccepts({ sessionKey: 'abcdefgh12', batchId: 'b1', events: [], ...labels }).valid, true)
  })

  it('never throws into the page, whatever it is given', () => {
    const sdk = sdkInNode()
    const calls = [
      () => { sdk.identify(hostile as never, hostile) },
      () => { sdk.identify({ toString() { throw new Error('no') } } as never) },
      () => { sdk.identify('u', hostile) },
      () => { sdk.setTags(hostile) },
      () => { sdk.setTags({ a: { toString() { throw new Error('no') } } } as never) },
      () => { sdk.consent(hostile as never) },
      () => { sdk.init(hostile) },
    ]
    for (const call of calls) assert.doesNotThrow(call)
  })
})
