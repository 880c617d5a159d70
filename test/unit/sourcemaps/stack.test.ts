import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { causeHeads, MAX_FRAMES, parseStack } from '../../../src/sourcemaps/stack.ts'

const APP = 'https://shop.example/assets/index-DbQ2xY9p.js'

describe('parseStack', () => {
  it('reads Chrome/V8 stacks: named, async, constructor, method, eval and anonymous frames; native frames dropped', () => {
    const stack = `TypeError: Cannot read properties of undefined (reading 'items')
    at u (${APP}:1:48213)
    at async checkout (${APP}:1:50120)
    at new Cart (${APP}:1:3021)
    at HTMLButtonElement.<anonymous> (${APP}:1:9001)
    at eval (eval at run (${APP}:1:700), <anonymous>:1:7)
    at ${APP}:1:120
    at Array.forEach (<anonymous>)`
    assert.deepEqual(parseStack(stack), [
      { function: 'u', file: APP, line: 1, column: 48213 },
      { function: 'async checkout', file: APP, line: 1, column: 50120 },
      { function: 'new Cart', file: APP, line: 1, column: 3021 },
      { function: 'HTMLButtonElement.<anonymous>', file: APP, line: 1, column: 9001 },
      // eval'd code has no file of its own: the frame points at the eval call in the script.
      { function: 'eval', file: APP, line: 1, column: 700 },
      { function: null, file: APP, line: 1, column: 120 },
    ])
  })

  it('reads the rarer V8 forms: aliases, paths, other schemes; code without a script of its own has no file', () => {
    const stack = [
      'Error: x',
      `    at Object.foo [as bar] (${APP}:3:4)`,
      '    at k (/usr/src/app/index.js:5:6)',
      '    at f (webpack://app/./src/a.ts:10:5)',
      '    at h (blob:https://shop.example/1234-5678:3:9)',
      '    at <anonymous>:1:1',
      `    at m (${APP})`,
      `    at ${APP}`,
      '    at async Promise.all (index 0)',
      '    at n (native)',
    ].join('\n')
    assert.deepEqual(parseStack(stack), [
      { function: 'Object.foo [as bar]', file: APP, line: 3, column: 4 },
      { function: 'k', file: '/usr/src/app/index.js', line: 5, column: 6 },
      { function: 'f', file: 'webpack://app/./src/a.ts', line: 10, column: 5 },
      { function: 'h', file: 'blob:https://shop.example/1234-5678', line: 3, column: 9 },
      { function: null, file: null, line: 1, column: 1 },
      { function: 'm', file: APP, line: null, column: null },
    ])
  })

  it('does not read a V8 message that looks like a frame as one', () => {
    const stack = 'Error: connect to localhost:8080\nretried at proxy:12\n    at connect (https://h.example/a.js:3:9)'
    assert.deepEqual(parseStack(stack), [{ function: 'connect', file: 'https://h.example/a.js', line: 3, column: 9 }])
  })

  it('reads Firefox stacks: closures (fn/<), async markers, and code from eval or new Function at the calling line', () => {
    const app = 'https://shop.example/assets/app-7RZI5MVM.js'
    const stack = [
      `checkout@${app}:12:34`,
      `checkout/<@${app}:13:5`,
      `@${app} line 2 > eval:1:3`,
      `run@${app} line 5 > Function:1:3`,
      `async*submit@${app}:20:1`,
      '',
    ].join('\n')
    assert.deepEqual(parseStack(stack), [
      { function: 'checkout', file: app, line: 12, column: 34 },
      { function: 'checkout/<', file: app, line: 13, column: 5 },
      { function: null, file: app, line: 2, column: null },
      { function: 'run', file: app, line: 5, column: null },
      { function: 'async*submit', file: app, line: 20, column: 1 },
    ])
  })

  it('reads Safari stacks: global code, bare @ frames, extension frames; native code dropped', () => {
    const main = 'https://shop.example/static/js/main.3f9a1c2b7d4e.js'
    const stack = [
      `checkout@${main}:1:48213`,
      'forEach@[native code]',
      `global code@${main}:3:7`,
      `@${main}:4:8`,
      '@safari-web-extension://0A1B2C3D/content.js:5:6',
    ].join('\n')
    assert.deepEqual(parseStack(stack), [
      { function: 'checkout', file: main, line: 1, column: 48213 },
      { function: 'global code', file: main, line: 3, column: 7 },
      { function: null, file: main, line: 4, column: 8 },
      { function: null, file: 'safari-web-extension://0A1B2C3D/content.js', line: 5, column: 6 },
    ])
  })

  it(`keeps at most ${MAX_FRAMES} frames, the newest`, () => {
    const stack = Array.from({ length: 80 }, (_, i) => `f${i}@https://h.example/a.js:${i + 1}:1`).join('\n')
    const frames = parseStack(stack)
    assert.equal(frames.length, MAX_FRAMES)
    assert.equal(frames[0]?.function, 'f0')
  })

  it('numbers the frames of a chained error\'s causes, each after its Caused by line', () => {
    const stack = `Error: checkout failed\n    at checkout (/srv/app.js:9:3)\nCaused by: TypeError: price is undefined\n    at price (/srv/app.js:2:1)
Caused by: KeyError: 'sku'\nCaused by: Error: deep\n    at deep (/srv/app.js:1:1)`
    assert.deepEqual(parseStack(stack).map((f) => [f.function, f.cause]), [['checkout', undefined], ['price', 1], ['deep', 3]])
    assert.deepEqual(causeHeads(stack), ['TypeError: price is undefined', "KeyError: 'sku'", 'Error: deep'])
    assert.deepEqual(causeHeads('Error: x\n    at a (/a.js:1:1)'), [])
  })
})
