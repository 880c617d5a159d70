import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { contextAt, enclosingFunction, lineStarts } from '../../../src/sourcemaps/original.ts'

/** The enclosing function's name at the first `@` of `source` (the marker is removed first). */
function nameAt(source: string): string | null {
  const at = source.indexOf('@')
  assert.ok(at !== -1, 'the test source marks a position with @')
  const text = source.slice(0, at) + source.slice(at + 1)
  const starts = lineStarts(text)
  const line = [...starts].findLastIndex((start) => start <= at)
  return enclosingFunction(text, starts, line, at - (starts[line] ?? 0))
}

describe('enclosingFunction: the original function around a position', () => {
  it('recognizes declarations, assigned functions and arrows, object properties and methods', () => {
    assert.equal(nameAt('export function checkout(cart, user) {\n  return user.@coupon.code\n}'), 'checkout')
    assert.equal(nameAt('async function* pages(url) {\n  yield @fetch(url)\n}'), 'pages')
    assert.equal(nameAt('const total = function (items) {\n  return @items.length\n}'), 'total')
    assert.equal(nameAt('const total = async (items, tax = 1) => {\n  return @items.length\n}'), 'total')
    assert.equal(nameAt('const total = items => {\n  return @items.length\n}'), 'total')
    assert.equal(nameAt('export const total = (items: Item[]): number => {\n  return @items.length\n}'), 'total')
    assert.equal(nameAt('const api = {\n  load: function () {\n    @x()\n  },\n}'), 'load')
    assert.equal(nameAt('const api = {\n  save: async () => {\n    @x()\n  },\n}'), 'save')
    assert.equal(nameAt('class Cart {\n  static async total(items: Item[]): Promise<number> {\n    return @sum(items)\n  }\n}'), 'total')
    assert.equal(nameAt('class Cart {\n  #secret() {\n    @x()\n  }\n}'), '#secret')
  })

  it('takes the innermost function, not a sibling that closed before the position', () => {
    const source = 'function outer() {\n  function helper() {\n    return 1\n  }\n  if (ok) {\n    for (;;) { @boom() }\n  }\n}'
    assert.equal(nameAt(source), 'outer')
    assert.equal(nameAt('function outer() {\n  function inner() {\n    @boom()\n  }\n}'), 'inner')
    assert.equal(nameAt('function a() {}\nfunction b() {\n  @boom()\n}'), 'b')
  })

  it('is not fooled by braces in strings, comments and template literals', () => {
    const source = 'function render(user) {\n  const s = "}}}" + \'}\' // }\n  /* } */ const t = `${user.name} }`\n  return @t\n}'
    assert.equal(nameAt(source), 'render')
  })

  it('is null in an anonymous function, a constructor, or top-level code', () => {
    assert.equal(nameAt('function checkout() {\n  items.forEach((item) => {\n    @item.price.x\n  })\n}'), null)
    assert.equal(nameAt('function checkout() {\n  items.forEach(function (item) {\n    @item.price.x\n  })\n}'), null)
    assert.equal(nameAt('class Cart {\n  constructor(items) {\n    @items.x\n  }\n}'), null)
    assert.equal(nameAt('const a = 1\n@boom()\n'), null)
    assert.equal(nameAt('function done() {\n  return 1\n}\n@boom()'), null)
  })

  it('does not take calls, control statements or expression-bodied arrows for a function', () => {
    assert.equal(nameAt('function outer() {\n  helper(a, b);\n  if (x) {\n    @boom()\n  }\n}'), 'outer')
    assert.equal(nameAt('function outer() {\n  const f = (a) => a + 1\n  @boom()\n}'), 'outer')
    assert.equal(nameAt('function outer() {\n  while (x) {\n    @boom()\n  }\n}'), 'outer')
  })
})

describe('contextAt: the source around a frame', () => {
  const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\r\n')
  const starts = lineStarts(text)

  it('gives five lines either side, fewer at the edges, without line ends', () => {
    assert.deepEqual(contextAt(text, starts, 9, 0), {
      pre: ['line 5', 'line 6', 'line 7', 'line 8', 'line 9'], line: 'line 10', post: ['line 11', 'line 12', 'line 13', 'line 14', 'line 15'],
    })
    assert.deepEqual(contextAt(text, starts, 1, 0)?.pre, ['line 1'])
    assert.deepEqual(contextAt(text, starts, 19, 0)?.post, [])
    assert.equal(contextAt(text, starts, 20, 0), null)
  })

  it('cuts long lines to 500 characters, the frame\'s own around its column', () => {
    const long = `${'a'.repeat(2000)}X${'b'.repeat(2000)}`
    const context = contextAt(`${long}\n${long}`, lineStarts(`${long}\n${long}`), 1, 2000)
    assert.ok(context)
    assert.equal(context.pre[0], `${'a'.repeat(500)}…`)
    assert.equal(context.line, `…${'a'.repeat(250)}X${'b'.repeat(249)}…`)
  })
})
