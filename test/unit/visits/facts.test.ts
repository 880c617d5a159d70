import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cleanFacts, FACT_LAYOUT, factColumns, factsOf, keepFacts, noFacts } from '../../../src/visits/facts.ts'
import { FACT_COLUMNS } from '../../../src/visits/tables.ts'
import { VISITOR_FACTS } from '../../../src/contract/visitor.ts'
import { SessionSchema } from '../../../src/contract/session.ts'
import { TransferLine } from '../../../src/transfer/schema.ts'

const facts = {
  ...noFacts(), ip: '203.0.113.9', country: 'DE', userAgent: 'Mozilla/5.0', utm: { utm_source: 'news' }, entryUrl: 'https://shop.example/',
  browser: 'Chrome', os: 'Windows', user: { id: 'u-42', traits: { plan: 'pro', seats: 3, trial: false } }, tags: { team: 'a' },
  release: '1.2.3', environment: 'production',
}

describe('visitor facts', () => {
  it('are stored in snake_case columns, object values as JSON text, the user in two columns, and read back as they were', () => {
    assert.deepEqual([...FACT_COLUMNS], ['ip', 'country', 'user_agent', 'utm', 'entry_url', 'browser', 'os', 'user_id', 'user_traits',
      'tags', 'release', 'environment'])
    // tables.ts lists the columns for select lists; facts.ts derives them from the contract: the two must agree.
    assert.deepEqual(FACT_LAYOUT.flatMap((f) => f.columns), [...FACT_COLUMNS])
    const row = factColumns(facts)
    assert.deepEqual(row, {
      ip: '203.0.113.9', country: 'DE', user_agent: 'Mozilla/5.0', utm: '{"utm_source":"news"}', entry_url: 'https://shop.example/',
      browser: 'Chrome', os: 'Windows', user_id: 'u-42', user_traits: '{"plan":"pro","seats":3,"trial":false}', tags: '{"team":"a"}',
      release: '1.2.3', environment: 'production',
    })
    assert.deepEqual(factsOf(row), facts)
    assert.deepEqual(factsOf(factColumns(noFacts())), noFacts())
    assert.deepEqual(factsOf(factColumns({ ...noFacts(), user: { id: 'x', traits: null } })).user, { id: 'x', traits: null })
  })

  it('a stored first fact is kept and only unknown ones are filled; a latest fact the batch carries replaces the stored one', () => {
    const stored = factColumns({ ...noFacts(), ip: '198.51.100.1', release: '1.0.0', user: { id: 'old', traits: { plan: 'free' } } })
    assert.deepEqual(keepFacts(stored, facts), { ...factColumns(facts), ip: '198.51.100.1' })
    // A batch without a user, tags or release keeps the stored ones.
    const kept = keepFacts(stored, { ...noFacts(), country: 'FR' })
    assert.deepEqual(factsOf(kept).user, { id: 'old', traits: { plan: 'free' } })
    assert.equal(kept.release, '1.0.0')
    // A new user without traits replaces the old user's traits too.
    assert.equal(keepFacts(stored, { ...noFacts(), user: { id: 'new', traits: null } }).user_traits, null)
  })

  it('the API Session and the import line carry every fact, with the definition\'s bounds', () => {
    for (const key of Object.keys(VISITOR_FACTS)) {
      assert.ok(key in SessionSchema.properties, `Session has ${key}`)
      assert.ok(key in TransferLine.properties, `the import line has ${key}`)
    }
    assert.equal((TransferLine.properties.userAgent as { maxLength?: number }).maxLength, (VISITOR_FACTS.userAgent as { maxLength?: number }).maxLength)
  })

  it('imported facts lose NUL characters, in tag names and values and user traits too, and missing ones become null', () => {
    assert.deepEqual(cleanFacts({ ip: 'a\u0000b', utm: { 'k\u0000': 'v\u0000' }, user: { id: 'u\u0000', traits: { n: 1, s: 'x\u0000' } } }),
      { ...noFacts(), ip: 'a\uFFFDb', utm: { 'k\uFFFD': 'v\uFFFD' }, user: { id: 'u\uFFFD', traits: { n: 1, s: 'x\uFFFD' } } })
  })
})
