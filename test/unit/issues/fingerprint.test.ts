import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  errorType, frameName, groupEvent, GROUPING_VERSION, isInApp, normalizeMessage, normalizePath, urlTemplate, type Grouping, type GroupingInput,
} from '../../../src/issues/fingerprint.ts'
import type { Frame } from '../../../src/sourcemaps/stack.ts'
import { eventRecord } from '../../helpers/factories.ts'

const base: GroupingInput = { type: 'ERROR', message: null, stack: null, url: null, method: null, statusCode: null, fingerprint: null }
const group = (event: Partial<GroupingInput>, mapped?: readonly (Frame | null)[]): Grouping => {
  const g = groupEvent({ ...base, ...event }, mapped)
  assert.ok(g, 'grouped')
  return g
}
/** Checks `fn` on each [input, expected output] pair, naming the input that fails. */
const expectEach = (fn: (input: string) => string, cases: [string, string][]) => {
  for (const [input, output] of cases) assert.equal(fn(input), output, input)
}
const error = (message: string, stack: string | null = null) => group({ message, stack })
const http = (method: string, url: string, statusCode: number | null) => group({ type: 'HTTP_ERROR', method, url, statusCode })

/** A V8 stack of the checkout bug as release `bundle` (a chunk file name) with minified names `min`. */
const chromeStack = (bundle: string, min = 'u') => `TypeError: Order 1 has no items
    at ${min} (https://shop.example/assets/${bundle}:1:48213)
    at async checkout (https://shop.example/assets/${bundle}:1:50120)
    at new Cart (https://shop.example/static/cart.js:10:5)
    at submit (https://shop.example/static/form.js:3:7)
    at https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js:5:100`

describe('errorType', () => {
  it('reads the name on the first line of a V8 stack, whatever it is', () => {
    assert.equal(errorType('Uncaught oops', 'NotFound: no order\n    at a (https://h/a.js:1:1)'), 'NotFound')
    assert.equal(errorType(null, 'Error\n    at a (https://h/a.js:1:1)'), 'Error')
  })
  it('reads a name ending in Error or Exception from the message, after the SDK and browser prefixes', () => {
    assert.equal(errorType('Uncaught TypeError: x is not a function', null), 'TypeError')
    assert.equal(errorType('Unhandled rejection: ChunkLoadError: Loading chunk 7 failed', null), 'ChunkLoadError')
    assert.equal(errorType('TypeError: x is undefined', 'f@https://h/a.js:1:1'), 'TypeError', 'Firefox: the stack opens with a frame')
    assert.equal(errorType('uncaught exception: DOMException: The operation was aborted.', null), 'DOMException')
  })
  it('reads a server language\'s qualified name from the stack: dotted, Ruby\'s and PHP\'s namespaces, Java\'s inner classes', () => {
    for (const name of ['json.decoder.JSONDecodeError', 'Shop::PaymentDeclined', 'App\\Exception\\Declined', 'com.shop.Declined$Card']) {
      assert.equal(errorType(`${name}: no`, `${name}: no\n    at pay (/srv/app.rb:3)`), name)
    }
  })
  it('is Error otherwise: a colon after any word is not a type', () => {
    assert.equal(errorType('Order: 5 items missing', null), 'Error')
    assert.equal(errorType('Uncaught out of stock', 'https://h/a.js:1:2'), 'Error')
    assert.equal(errorType(null, null), 'Error')
  })
})

describe('normalizeMessage', () => {
  it('drops the Uncaught / Unhandled rejection prefixes and the type', () => {
    assert.equal(normalizeMessage('Uncaught TypeError: cart is undefined'), 'cart is undefined')
    assert.equal(normalizeMessage('Unhandled rejection: TypeError: cart is undefined'), 'cart is undefined')
    assert.equal(normalizeMessage('uncaught exception: out of stock'), 'out of stock')
    assert.equal(normalizeMessage('Uncaught NotFound: no order', 'NotFound'), 'no order', 'a type read from the stack')
  })
  it('replaces each kind of variable part by its placeholder', () => {
    expectEach(normalizeMessage, [
      ['mail ann.lee+shop@mail.example.com failed', 'mail <email> failed'],
      ['cannot load wss://rt.example/socket?id=9', 'cannot load <url>'],
      ['refused 10.0.0.12', 'refused <ip>'],
      ['refused 2001:db8::42 and fe80::1%eth0 and ::ffff:10.0.0.1', 'refused <ip> and <ip> and <ip>'],
      ['user 123e4567-e89b-12d3-a456-426614174000 gone', 'user <uuid> gone'],
      ['commit 3f9a1c2 and 0x1f and DEADBEEF42 failed', 'commit <hex> and <hex> and <hex> failed'],
      [`reading 'items' of "cart" in \`tpl\``, 'reading <str> of <str> in <str>'],
      ['took 1.5 s for 42 of -7', 'took <float> s for <int> of <int>'],
    ])
  })
  it('applies them in order: a URL or email is one part, a UUID is not hex, a quoted number is a string', () => {
    expectEach(normalizeMessage, [
      ['GET http://10.0.0.1:8080/a/12 failed', 'GET <url> failed'],
      ['to ann@10.example.com', 'to <email>'],
      ['id 123e4567-e89b-12d3-a456-426614174000', 'id <uuid>'],
      ["code '42'", 'code <str>'],
    ])
  })
  it('leaves words alone: apostrophes, hex-looking words without digits, digits inside words, versions, times as numbers', () => {
    expectEach(normalizeMessage, [
      ["Can't find the user's cart", "Can't find the user's cart"],
      ["Can't load the users' carts", "Can't load the users' carts"],
      ['defaced facade', 'defaced facade'],
      ['h264 in user42 needs v1.2.3', 'h264 in user42 needs v1.2.3'],
      ['at 12:30:45', 'at <int>:<int>:<int>'],
      ['a::b failed', 'a::b failed'], // C++, no IPv6 address
    ])
  })
  it('keeps the first line, at most 500 characters', () => {
    assert.equal(normalizeMessage('TypeError: first\nsecond 42'), 'first')
    assert.equal(normalizeMessage(`x${'y'.repeat(900)}`).length, 500)
  })
})

describe('normalizePath', () => {
  const deploys: [string, string, string, string][] = [
    // bundler, one deploy, the next deploy, the path both become
    ['Vite/Rollup', 'https://shop.example/assets/index-DbQ2xY9p.js', 'https://shop.example/assets/index-C8r_-Wk1.js', '/assets/index.js'],
    ['Vite, hash with - inside', 'https://shop.example/assets/vendor-react-Db-Q2xY9.js', 'https://shop.example/assets/vendor-react-Bx7kQ_2m.js', '/assets/vendor-react.js'],
    ['esbuild', 'https://shop.example/app-7RZI5MVM.js', 'https://shop.example/app-QKWPHXLD.js', '/app.js'],
    ['webpack', 'https://shop.example/static/js/main.3f9a1c2b7d4e.js', 'https://shop.example/static/js/main.0b44ae91c2d7.js', '/static/js/main.js'],
    ['webpack chunk', 'https://shop.example/static/js/2.3f9a1c2b.chunk.js', 'https://shop.example/static/js/2.77ab01ce.chunk.js', '/static/js/2.chunk.js'],
    ['webpack css', 'https://shop.example/main.3f9a1c2b.css', 'https://shop.example/main.0b44ae91.css', '/main.css'],
  ]
  for (const [bundler, before, after, path] of deploys) {
    it(`removes ${bundler} content hashes, so one file keeps its path across deploys`, () => {
      assert.equal(normalizePath(before), path)
      assert.equal(normalizePath(after), path)
    })
  }
  it('removes origin, query and fragment', () => {
    assert.equal(normalizePath('https://shop.example:8443/static/app.js?v=3#top'), '/static/app.js')
    assert.equal(normalizePath('webpack-internal:///./src/cart.js'), '/src/cart.js')
  })
  it('removes directories named by a release: version, short SHA, md5, sha1', () => {
    expectEach(normalizePath, [
      ['https://h.example/v1.2.3/app.js', '/app.js'],
      ['https://h.example/static/20/app.js', '/static/app.js'],
      ['https://h.example/3f9a1c2/app.js', '/app.js'],
      [`https://h.example/${'a1'.repeat(16)}/${'b2'.repeat(20)}/app.js`, '/app.js'],
      ['https://h.example/deadbeef/app.js', '/deadbeef/app.js'],
    ])
  })
  it('keeps names that carry no hash', () => {
    for (const name of ['app.js', 'jquery-3.7.1.min.js', 'my-component-abcdefgh.js', 'date-picker.js', 'checkout']) {
      assert.equal(normalizePath(`https://h.example/${name}`), `/${name}`)
    }
  })
})

describe('urlTemplate', () => {
  it('replaces numeric, hex, UUID and hash-like segments by :id and drops the query', () => {
    expectEach(urlTemplate, [
      ['/api/orders/123?page=2#x', '/api/orders/:id'],
      ['/api/commits/3f9a1c2b/files', '/api/commits/:id/files'],
      ['/api/users/123e4567-e89b-12d3-a456-426614174000', '/api/users/:id'],
      ['/api/files/aB3dE5gH7jK9mN1pQ', '/api/files/:id'],
    ])
  })
  it('keeps route words, short versions and the origin (lower-cased)', () => {
    expectEach(urlTemplate, [
      ['https://API.Example.com/v2/orders/checkout', 'https://api.example.com/v2/orders/checkout'],
      ['/api/feedback/deadbeef', '/api/feedback/deadbeef'],
    ])
  })
})

describe('isInApp', () => {
  it('is false for node_modules, library CDNs, browser extensions and frames without a file', () => {
    for (const file of ['https://shop.example/node_modules/react/index.js', 'webpack:///./node_modules/lodash/get.js',
      'https://cdn.jsdelivr.net/npm/alpinejs@3/dist/cdn.min.js', 'https://unpkg.com/react@18/umd/react.production.min.js',
      'https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js', 'https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js',
      'https://code.jquery.com/jquery-3.7.1.min.js', 'chrome-extension://abcdef/content.js', 'moz-extension://1234/content.js',
      'safari-extension://com.example.ext/content.js', 'safari-web-extension://0A1B2C3D/content.js', '', null,
      'node:internal/process/task_queues', 'internal/timers.js', '/usr/lib/python3.11/json/decoder.py', '/srv/venv/lib/python3.12/site-packages/flask/app.py',
      '/usr/lib/python3/dist-packages/urllib3/response.py', '/usr/lib/ruby/3.1.0/json/common.rb', '/var/lib/gems/3.1.0/gems/rack-2.2.22/lib/rack.rb']) {
      assert.equal(isInApp(file), false, String(file))
    }
  })
  it('is true for the site\'s own scripts, wherever they are served from', () => {
    for (const file of ['https://shop.example/assets/index-DbQ2xY9p.js', 'https://static.shop-cdn.example/app.js', '/src/cart.ts',
      '/srv/shop/lib/python_tools/orders.py', '/srv/shop/app/models/order.rb']) {
      assert.equal(isInApp(file), true, file)
    }
  })
})

describe('frameName', () => {
  it('drops async/new prefixes, Firefox markers and closure suffixes', () => {
    for (const name of ['async checkout', 'new checkout', 'checkout/<', 'checkout/</<', 'async*checkout', 'promise callback*checkout']) {
      assert.equal(frameName(name, false), 'checkout', name)
    }
  })
  it('ignores raw names of ≤ 2 characters (minified) and short receivers; keeps mapped names as they are', () => {
    assert.equal(frameName('u', false), null)
    assert.equal(frameName('Object.u', false), null)
    assert.equal(frameName('t.render', false), 'render')
    assert.equal(frameName('go', true), 'go')
    assert.equal(frameName('t.render', true), 't.render')
    assert.equal(frameName('HTMLButtonElement.<anonymous>', false), null)
  })
})

describe('groupEvent: ERROR', () => {
  it('groups one bug whatever numbers, ids, emails and quoted values its message carries', () => {
    const a = error('Uncaught TypeError: Order 42 for ann@shop.example (3f9a1c2b) has no \'items\'', chromeStack('index-DbQ2xY9p.js'))
    const b = error('Uncaught TypeError: Order 977 for bob@mail.example (0b44ae91) has no \'lines\'', chromeStack('index-DbQ2xY9p.js'))
    assert.equal(a.fingerprint, b.fingerprint)
    assert.equal(a.title, 'TypeError: Order <int> for <email> (<hex>) has no <str>')
  })
  it('groups one bug across deploys: new chunk hashes and new minified names', () => {
    const a = error('Uncaught TypeError: Order 1 has no items', chromeStack('index-DbQ2xY9p.js', 'u'))
    const b = error('Uncaught TypeError: Order 1 has no items', chromeStack('index-C8r_-Wk1.js', 'Qe'))
    assert.equal(a.fingerprint, b.fingerprint)
  })
  it('groups one bug across browsers: Chrome, Firefox, and the SDK\'s unhandled rejections', () => {
    const chrome = error('Uncaught TypeError: cart is undefined', 'TypeError: cart is undefined\n    at checkout (https://shop.example/app.js:1:2)')
    const firefox = error('TypeError: cart is undefined', 'checkout@https://shop.example/app.js:1:2\n')
    const rejection = error('Unhandled rejection: TypeError: cart is undefined', 'checkout@https://shop.example/app.js:1:2\n')
    assert.equal(chrome.fingerprint, firefox.fingerprint)
    assert.equal(chrome.fingerprint, rejection.fingerprint)
  })
  it('splits different bugs: another type, another message, another in-app frame', () => {
    const stack = chromeStack('index-DbQ2xY9p.js')
    const one = error('Uncaught TypeError: Order 1 has no items', stack).fingerprint
    assert.notEqual(error('Uncaught RangeError: Order 1 has no items', stack.replace('TypeError', 'RangeError')).fingerprint, one)
    assert.notEqual(error('Uncaught TypeError: Order 1 was paid twice', stack).fingerprint, one)
    assert.notEqual(error('Uncaught TypeError: Order 1 has no items', stack.replace('new Cart', 'new Basket')).fingerprint, one)
  })
  it('hashes type, message and the top three in-app frames (function@path), skipping vendor frames', () => {
    const g = error('Uncaught TypeError: Order 1 has no items', chromeStack('index-DbQ2xY9p.js'))
    assert.deepEqual(g.components, [
      'type:TypeError', 'message:Order <int> has no items', 'frame:/assets/index.js', 'frame:checkout@/assets/index.js', 'frame:Cart@/static/cart.js',
    ])
    assert.equal(g.culprit, '/assets/index.js', 'the top frame\'s minified name is no culprit')
    assert.equal(error('x', 'TypeError: x\n    at checkout (https://shop.example/app.js:1:2)').culprit, 'checkout (/app.js)')
  })
  it('uses type and message only when no frame is in-app, so vendor stacks never split an issue', () => {
    const vendor = (fn: string, file: string) => `TypeError: boom\n    at ${fn} (https://cdn.jsdelivr.net/npm/${file}:1:2)`
    const a = error('Uncaught TypeError: boom', vendor('xe', 'lib@1.0.0/dist/a.min.js'))
    const b = error('Uncaught TypeError: boom', vendor('Ht', 'lib@1.0.1/dist/b.min.js'))
    assert.deepEqual(a.components, ['type:TypeError', 'message:boom'])
    assert.equal(a.fingerprint, b.fingerprint)
    assert.equal(a.culprit, null)
    assert.deepEqual(error('boom').components, ['type:Error', 'message:boom'])
  })
  it('uses a mapped frame in place of its raw frame, with its original name and source path', () => {
    const stack = chromeStack('index-DbQ2xY9p.js')
    const mapped: (Frame | null)[] = [
      { function: 'applyCoupon', file: 'webpack://shop/./src/cart.ts', line: 9, column: 43 },
      { function: 'go', file: 'webpack://shop/./src/checkout.ts', line: 20, column: 1 },
      { function: 'get', file: 'webpack://shop/./node_modules/lodash/get.js', line: 1, column: 1 },
      null,
    ]
    const g = group({ message: 'Uncaught TypeError: Order 1 has no items', stack }, mapped)
    assert.deepEqual(g.components.slice(2), ['frame:applyCoupon@/src/cart.ts', 'frame:go@/src/checkout.ts', 'frame:submit@/static/form.js'])
    assert.equal(g.culprit, 'applyCoupon (/src/cart.ts)')
    assert.notEqual(g.fingerprint, error('Uncaught TypeError: Order 1 has no items', stack).fingerprint)
  })
  it('titles type and normalized message, at most 200 characters', () => {
    assert.equal(error('Uncaught TypeError: Order 12 has no items').title, 'TypeError: Order <int> has no items')
    assert.equal(error('Error').title, 'Error')
    assert.equal(error(`Uncaught TypeError: ${'x'.repeat(400)}`).title.length, 200)
  })
})

describe('groupEvent: HTTP_ERROR', () => {
  it('groups requests to one endpoint whatever their ids', () => {
    const a = http('POST', '/api/orders/123', 500)
    assert.equal(a.fingerprint, http('POST', '/api/orders/456?retry=1', 500).fingerprint)
    assert.deepEqual(a.components, ['method:POST', 'url:/api/orders/:id', 'status:500'])
    assert.equal(a.title, 'POST /api/orders/:id → 500')
    assert.equal(http('GET', 'https://api.example/v1/orders/7', 404).culprit, 'https://api.example/v1/orders/:id')
  })
  it('splits by status, method and host', () => {
    const one = http('POST', '/api/orders/123', 500).fingerprint
    assert.notEqual(http('POST', '/api/orders/123', 502).fingerprint, one)
    assert.notEqual(http('PUT', '/api/orders/123', 500).fingerprint, one)
    assert.notEqual(http('POST', 'https://other.example/api/orders/123', 500).fingerprint, one)
  })
  it('groups network failures as their own status', () => {
    const g = http('get', '/api/orders/1', null)
    assert.deepEqual(g.components, ['method:GET', 'url:/api/orders/:id', 'status:network'])
    assert.equal(g.title, 'GET /api/orders/:id → network error')
  })
})

describe('groupEvent: explicit fingerprint', () => {
  it('wins over message, stack and URL, within one event type; the title still comes from the event', () => {
    const a = group({ message: 'Uncaught TypeError: a', stack: chromeStack('index-DbQ2xY9p.js'), fingerprint: 'checkout-failed' })
    const b = group({ message: 'Payment declined 42', fingerprint: 'checkout-failed' })
    assert.equal(a.fingerprint, b.fingerprint)
    assert.deepEqual(a.components, ['fingerprint:checkout-failed', 'event:ERROR'])
    assert.equal(b.title, 'Error: Payment declined <int>')
    const h = group({ type: 'HTTP_ERROR', method: 'POST', url: '/api/pay', statusCode: 402, fingerprint: 'checkout-failed' })
    assert.notEqual(h.fingerprint, a.fingerprint)
    assert.equal(h.title, 'POST /api/pay → 402')
  })
  it('is ignored when empty', () => {
    assert.deepEqual(group({ message: 'boom', fingerprint: '' }).components, ['type:Error', 'message:boom'])
  })
})

describe('groupEvent: versioning', () => {
  it('takes a stored event as it is', () => {
    const stored = eventRecord('e1', 0, 'HTTP_ERROR', { method: 'POST', url: '/api/orders/123', statusCode: 500 })
    assert.equal(groupEvent(stored)?.fingerprint, http('POST', '/api/orders/9', 500).fingerprint)
  })
  it('groups only ERROR, HTTP_ERROR and RAGE_CLICK', () => {
    for (const type of ['USER_REPORT', 'CONSOLE_ERROR', 'SLOW_REQUEST', 'DEAD_CLICK', 'WEB_VITAL']) assert.equal(groupEvent({ ...base, type, message: 'x' }), null)
  })
  it('keeps its fingerprints: a change here needs a new GROUPING_VERSION (docs/api.md, Grouping rules)', () => {
    const g = error('Uncaught TypeError: Order 1 has no items', chromeStack('index-DbQ2xY9p.js'))
    assert.equal(GROUPING_VERSION, 1)
    assert.equal(g.version, GROUPING_VERSION)
    assert.match(g.fingerprint, /^[0-9a-f]{64}$/)
    assert.equal(g.fingerprint, 'c33a1790d541abfa4c174edfc332ec18954108dce7c61dbefb6412f6dabf2f53')
    assert.equal(http('POST', '/api/orders/123', 500).fingerprint, '1ac280fb14bc4e12bbf20d8af816c3f49dd4a98cdc584bc853668015d2d31438')
  })
})
