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

/** A test of cases: each a source with `@` at the position, and the name expected there. */
const names = (cases: readonly (readonly [string, string | null])[]) => (): void => {
  for (const [source, name] of cases) assert.equal(nameAt(source), name, source)
}

describe('enclosingFunction: the original function around a position', () => {
  it('recognizes declarations, assigned functions and arrows, object properties and methods', names([
    ['export function checkout(cart, user) {\n  return user.@coupon.code\n}', 'checkout'],
    ['async function* pages(url) {\n  yield @fetch(url)\n}', 'pages'],
    ['const total = function (items) {\n  return @items.length\n}', 'total'],
    ['const total = async (items, tax = 1) => {\n  return @items.length\n}', 'total'],
    ['const total = items => {\n  return @items.length\n}', 'total'],
    ['export const total = (items: Item[]): number => {\n  return @items.length\n}', 'total'],
    ['const api = {\n  load: function () {\n    @x()\n  },\n}', 'load'],
    ['const api = {\n  save: async () => {\n    @x()\n  },\n}', 'save'],
    ['class Cart {\n  static async total(items: Item[]): Promise<number> {\n    return @sum(items)\n  }\n}', 'total'],
    ['class Cart {\n  #secret() {\n    @x()\n  }\n}', '#secret'],
  ]))

  it('takes the innermost function, not a sibling that closed before the position', names([
    ['function outer() {\n  function helper() {\n    return 1\n  }\n  if (ok) {\n    for (;;) { @boom() }\n  }\n}', 'outer'],
    ['function outer() {\n  function inner() {\n    @boom()\n  }\n}', 'inner'],
    ['function a() {}\nfunction b() {\n  @boom()\n}', 'b'],
  ]))

  it('is not fooled by braces in strings, comments and template literals', names([
    ['function render(user) {\n  const s = "}}}" + \'}\' // }\n  /* } */ const t = `${user.name} }`\n  return @t\n}', 'render'],
  ]))

  it('is null in an anonymous function, a constructor, or top-level code', names([
    ['function checkout() {\n  items.forEach((item) => {\n    @item.price.x\n  })\n}', null],
    ['function checkout() {\n  items.forEach(function (item) {\n    @item.price.x\n  })\n}', null],
    ['class Cart {\n  constructor(items) {\n    @items.x\n  }\n}', null],
    ['const a = 1\n@boom()\n', null],
    ['function done() {\n  return 1\n}\n@boom()', null],
  ]))

  it('does not take calls, control statements or expression-bodied arrows for a function', names([
    ['function outer() {\n  helper(a, b);\n  if (x) {\n    @boom()\n  }\n}', 'outer'],
    ['function outer() {\n  const f = (a) => a + 1\n  @boom()\n}', 'outer'],
    ['function outer() {\n  while (x) {\n    @boom()\n  }\n}', 'outer'],
  ]))
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
