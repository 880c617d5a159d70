import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { decodedMappings, originalPositionFor } from '@jridgewell/trace-mapping'
import { parseStack } from '../../../src/sourcemaps/stack.ts'
import { loadedMap, mapFrame, unmappedFrame } from '../../../src/sourcemaps/frames.ts'
import { parseMap } from '../../../src/sourcemaps/map.ts'
import { mapUrlsFor, scriptUrl } from '../../../src/sourcemaps/urls.ts'
import { buildBundle, CHECKOUT_SOURCE, type Bundle } from '../../helpers/bundle.ts'

const URL = 'https://shop.example/static/app.js'
/** 1-based line and column of `needle` in the original source. */
function positionOf(needle: string): { line: number; column: number } {
  const lines = CHECKOUT_SOURCE.split('\n')
  const line = lines.findIndex((l) => l.includes(needle))
  return { line: line + 1, column: (lines[line] ?? '').indexOf(needle) + 1 }
}

describe('a frame through a map (esbuild-minified bundle, V8 stack)', () => {
  let bundle: Bundle
  before(async () => { bundle = await buildBundle() })
  const frames = () => parseStack(bundle.stack(URL))
  const loaded = () => loadedMap(parseMap(bundle.map, 'app.js.map').map)

  it('maps a V8 frame to the original file, line and column', () => {
    const [top] = frames()
    assert.ok(top)
    const mapped = mapFrame(loaded(), top)
    assert.equal(mapped.mapped, true)
    assert.equal(mapped.file, 'src/checkout.js')
    // The failing read: `code` of `user.coupon.code`.
    const at = positionOf('coupon.code')
    assert.deepEqual({ line: mapped.line, column: mapped.column }, { line: at.line, column: at.column + 'coupon.'.length })
  })

  it('looks up the 1-based browser column as column − 1 and answers 1-based again', () => {
    const { map } = loaded()
    // Two mapped tokens side by side in the bundle: one column off lands on the other.
    const segments = decodedMappings(map)[0] ?? []
    const i = segments.findIndex((s, k) => k > 0 && s[0] - (segments[k - 1]?.[0] ?? -9) === 1 && s.length >= 4)
    const [here, next] = [segments[i - 1], segments[i]]
    assert.ok(here?.length === 4 || here?.length === 5)
    assert.ok(next?.length === 4 || next?.length === 5)
    const frame = { function: 'f', file: URL, line: 1, column: here[0] + 1 }
    const mapped = mapFrame(loaded(), frame)
    assert.deepEqual([mapped.line, mapped.column], [here[2] + 1, here[3] + 1])
    const naive = originalPositionFor(map, { line: 1, column: frame.column })
    assert.deepEqual([naive.line, naive.column], [next[2] + 1, next[3]], 'the browser column taken as 0-based names the next token')
  })

  it('names each frame by the original function around it, not the token the map names there', () => {
    const [top, caller, outer] = frames().map((f) => mapFrame(loaded(), f))
    assert.ok(top && caller && outer)
    assert.deepEqual(frames().slice(0, 2).map((f) => f.function), ['u', 'r'], 'the bundle renamed applyCoupon and checkout')
    assert.equal(top.function, 'applyCoupon')
    assert.equal(caller.function, 'checkout')
    assert.deepEqual({ line: caller.line, column: caller.column }, positionOf('applyCoupon(user, total)'))
    // An arrow with an expression body has no braces to find: the frame keeps its printed name.
    assert.equal(outer.function, 'globalThis.run')
  })

  it('gives five lines of original source either side', () => {
    const [top] = frames().map((f) => mapFrame(loaded(), f))
    assert.deepEqual(top?.context, {
      pre: ['  }', '  return total', '}', '', 'function applyCoupon(user, total) {'],
      line: '  const code = user.coupon.code',
      post: ['  return total - code.length', '}', '', 'globalThis.run = () => checkout({ items: [{ price: 120 }] }, {})', ''],
    })
  })

  it('leaves a frame outside the map, or without a position, as printed', () => {
    const map = loaded()
    const beyond = { function: 'x', file: URL, line: 40, column: 1 }
    assert.deepEqual(mapFrame(map, beyond), unmappedFrame(beyond))
    assert.equal(mapFrame(map, { function: null, file: URL, line: null, column: null }).mapped, false)
    assert.deepEqual(unmappedFrame(beyond), { ...beyond, mapped: false, inApp: true, context: null })
  })
})

describe('in-app frames', () => {
  // Hand-written mappings: generated column 0 → sources[0] 1:1, column 10 → sources[1] 1:1.
  const map = (extra: Record<string, unknown>) =>
    loadedMap(parseMap(Buffer.from(JSON.stringify({ version: 3, names: [], mappings: 'AAAA,UCAA', ...extra })), 'x.map').map)
  const at = (column: number) => ({ function: 'f', file: URL, line: 1, column })

  it('marks sources under node_modules and in the map\'s ignoreList as not in-app, and gives them no context', () => {
    const vendored = map({ sources: ['src/app.js', 'webpack://shop/node_modules/lib/index.js'], sourcesContent: ['app()', 'lib()'] })
    assert.deepEqual([mapFrame(vendored, at(1)).inApp, mapFrame(vendored, at(1)).context?.line], [true, 'app()'])
    assert.deepEqual([mapFrame(vendored, at(11)).inApp, mapFrame(vendored, at(11)).context], [false, null])
    const ignored = map({ sources: ['src/app.js', 'src/polyfill.js'], ignoreList: [1] })
    assert.equal(mapFrame(ignored, at(1)).inApp, true)
    assert.equal(mapFrame(ignored, at(11)).inApp, false)
  })

  it('marks unmapped frames of node_modules and browser extensions as not in-app', () => {
    assert.equal(unmappedFrame({ ...at(1), file: 'https://cdn.example/node_modules/react/index.js' }).inApp, false)
    assert.equal(unmappedFrame({ ...at(1), file: 'chrome-extension://abc/content.js' }).inApp, false)
    assert.equal(unmappedFrame({ ...at(1), file: 'safari-web-extension://abc/content.js' }).inApp, false)
    assert.equal(unmappedFrame(at(1)).inApp, true)
  })
})

describe('which stored URLs apply to a frame\'s script', () => {
  it('tries the exact URL first, then the ~/path that matches any scheme and host', () => {
    assert.deepEqual(mapUrlsFor('https://shop.example/static/app.js'), ['https://shop.example/static/app.js', '~/static/app.js'])
    assert.deepEqual(mapUrlsFor('http://localhost:5173/static/app.js'), ['http://localhost:5173/static/app.js', '~/static/app.js'])
  })

  it('ignores query and fragment, and compares URLs as WHATWG parsing writes them', () => {
    assert.deepEqual(mapUrlsFor('https://Shop.Example:443/static/./app.js?v=3#top'), ['https://shop.example/static/app.js', '~/static/app.js'])
    assert.deepEqual(scriptUrl('~/static/app.js?v=1'), { url: '~/static/app.js', path: '~/static/app.js' })
  })

  it('matches a script without a host only exactly, and a text that is no URL not at all', () => {
    assert.deepEqual(mapUrlsFor('file:///srv/app.js'), ['file:///srv/app.js'])
    assert.deepEqual(mapUrlsFor('<anonymous>'), [])
    assert.equal(scriptUrl('~/'), null)
  })
})
