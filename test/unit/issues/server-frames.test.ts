import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { groupEvent, type Grouping, type GroupingInput } from '../../../src/issues/fingerprint.ts'

const base: GroupingInput = { type: 'ERROR', message: null, stack: null, url: null, method: null, statusCode: null, fingerprint: null }
const group = (event: Partial<GroupingInput>): Grouping => {
  const g = groupEvent({ ...base, ...event })
  assert.ok(g, 'grouped')
  return g
}

describe('groupEvent: a server SDK\'s frames and chained errors', () => {
  const sdkFrame = (fn: string, file: string, inApp: boolean, cause?: number) => ({ function: fn, file, inApp, ...(cause !== undefined && { cause }) })
  const decode = (fn: string) => ({
    message: 'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
    stack: `json.decoder.JSONDecodeError: Expecting value\n    at raw_decode (/usr/lib/python3.11/json/decoder.py:355)\n    at ${fn} (/srv/shop/orders.py:12)`,
    frames: [sdkFrame('raw_decode', '/usr/lib/python3.11/json/decoder.py', false), sdkFrame(fn, '/srv/shop/orders.py', true)],
  })
  it('groups by the frames the SDK marked in_app, not by the stack\'s text', () => {
    const g = group(decode('load_cart'))
    assert.deepEqual(g.components, ['type:json.decoder.JSONDecodeError', 'message:Expecting value: line <int> column <int> (char <int>)', 'frame:load_cart@/srv/shop/orders.py'])
    assert.equal(g.culprit, 'load_cart (/srv/shop/orders.py)')
    assert.equal(g.title, 'json.decoder.JSONDecodeError: Expecting value: line <int> column <int> (char <int>)')
    assert.notEqual(group(decode('read_checkout')).fingerprint, g.fingerprint, 'another app function, another issue')
  })
  it('groups a chain on each of its errors: the causes\' types, messages and frames count', () => {
    const chain = (cause: string) => group({
      message: 'ValueError: bad order',
      stack: `ValueError: bad order\n    at place (/srv/shop/orders.py:7)\nCaused by: ${cause}\n    at lookup (/srv/shop/orders.py:3)`,
    })
    const g = chain("KeyError: 'sku'")
    assert.deepEqual(g.components, ['type:ValueError', 'message:bad order', 'frame:place@/srv/shop/orders.py',
      'type:KeyError', 'message:<str>', 'frame:lookup@/srv/shop/orders.py'])
    assert.equal(g.title, 'ValueError: bad order')
    assert.equal(chain("KeyError: 'qty'").fingerprint, g.fingerprint)
    assert.notEqual(chain('TypeError: price is undefined').fingerprint, g.fingerprint)
    const sdk = group({ ...decode('place'), frames: [sdkFrame('place', '/srv/shop/orders.py', true), sdkFrame('lookup', '/srv/shop/orders.py', true, 1)],
      stack: "ValueError: bad order\n    at place (/srv/shop/orders.py:7)\nCaused by: KeyError: 'sku'\n    at lookup (/srv/shop/orders.py:3)" })
    assert.deepEqual(sdk.components.slice(2), ['frame:place@/srv/shop/orders.py', 'type:KeyError', 'message:<str>', 'frame:lookup@/srv/shop/orders.py'])
  })
})
