import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cleanFacts, FACT_COLUMNS, factColumns, factsOf, keepFacts, VISITOR_FACTS } from '../../../src/visits/facts.ts'
import { SessionSchema } from '../../../src/sessions/schema.ts'
import { TransferLine } from '../../../src/transfer/schema.ts'

const facts = { ip: '203.0.113.9', country: 'DE', userAgent: 'Mozilla/5.0', utm: { utm_source: 'news' } }

describe('visitor facts', () => {
  it('are stored in snake_case columns, object values as JSON text, and read back as they were', () => {
    assert.deepEqual([...FACT_COLUMNS], ['ip', 'country', 'user_agent', 'utm'])
    const row = factColumns(facts)
    assert.deepEqual(row, { ip: '203.0.113.9', country: 'DE', user_agent: 'Mozilla/5.0', utm: '{"utm_source":"news"}' })
    assert.deepEqual(factsOf(row), facts)
    const none = { ip: null, country: null, userAgent: null, utm: null }
    assert.deepEqual(factsOf(factColumns(none)), none)
  })

  it('a stored fact is kept; only the unknown ones are filled', () => {
    const stored = factColumns({ ip: '198.51.100.1', country: null, userAgent: null, utm: null })
    assert.deepEqual(keepFacts(stored, facts), { ...factColumns(facts), ip: '198.51.100.1' })
  })

  it('the API Session and the import line carry every fact, with the definition\'s bounds', () => {
    for (const key of Object.keys(VISITOR_FACTS)) {
      assert.ok(key in SessionSchema.properties, `Session has ${key}`)
      assert.ok(key in TransferLine.properties, `the import line has ${key}`)
    }
    assert.equal((TransferLine.properties.userAgent as { maxLength?: number }).maxLength, (VISITOR_FACTS.userAgent as { maxLength?: number }).maxLength)
  })

  it('imported facts lose NUL characters, in tag names and values too, and missing ones become null', () => {
    assert.deepEqual(cleanFacts({ ip: 'a\u0000b', utm: { 'k\u0000': 'v\u0000' } }),
      { ip: 'a\uFFFDb', country: null, userAgent: null, utm: { 'k\uFFFD': 'v\uFFFD' } })
  })
})
