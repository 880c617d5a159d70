import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DEFAULT_DEAD_CLICK_WINDOW_MS, DEFAULT_RAGE_CLICK_COUNT, DEFAULT_RAGE_CLICK_WINDOW_MS, MAX_CLICK_SIGNALS_PER_PAGE, MAX_SELECTOR_LENGTH,
} from '../../../../common/limits.ts'
import { makeClickSignals, type Click, type ClickSignalOptions } from '../../../../browser/sdk/clicks.ts'
import { MAX_CLICK_COUNT } from '../../../../src/contract/limits.ts'

const DEFAULTS: ClickSignalOptions = {
  rageClicks: { count: DEFAULT_RAGE_CLICK_COUNT, windowMs: DEFAULT_RAGE_CLICK_WINDOW_MS },
  deadClicks: { windowMs: DEFAULT_DEAD_CLICK_WINDOW_MS },
}

/** The detectors over a fake clock, fake timers and a fake page: `respond()` is the page changing, `watching` how many watches are open. */
function page(options: ClickSignalOptions = DEFAULTS) {
  let now = 0
  let timers: { at: number; fn: () => void }[] = []
  const watches = new Set<() => void>()
  const events: Record<string, unknown>[] = []
  const signals = makeClickSignals(options, (e) => { events.push({ ...e }) }, {
    now: () => now,
    later: (fn, ms) => {
      const timer = { at: now + ms, fn }
      timers.push(timer)
      return () => { timers = timers.filter((t) => t !== timer) }
    },
    watch: (seen) => {
      watches.add(seen)
      return () => { watches.delete(seen) }
    },
  })
  const advance = (ms: number) => {
    const until = now + ms
    for (let next = timers.sort((a, b) => a.at - b.at)[0]; next && next.at <= until; next = timers.sort((a, b) => a.at - b.at)[0]) {
      timers = timers.filter((t) => t !== next)
      now = next.at
      next.fn()
    }
    now = until
  }
  return {
    signals, events, advance,
    respond: () => { for (const seen of [...watches]) seen() },
    get watching() { return watches.size },
  }
}

/** A click on `el`, as capture.ts describes one. */
const click = (el: object, name: string, more: Partial<Click> = {}): Click => ({
  el, selector: `button#${name}`, text: name, url: 'https://shop.example/cart', checked: true, followed: () => false, selected: () => false, ...more,
})

describe('rage and dead clicks', () => {
  it('a button that does nothing: one DEAD_CLICK when the window ends, and the watch closed', () => {
    const p = page()
    const el = {}
    p.signals.press(el, true)
    p.signals.click(click(el, 'nothing'))
    assert.equal(p.watching, 1, 'watching while the click is checked')
    p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS - 1)
    assert.deepEqual(p.events.map((e) => e.type), [])
    p.advance(1)
    assert.deepEqual(p.events, [{ type: 'DEAD_CLICK', url: 'https://shop.example/cart', selector: 'button#nothing', text: 'nothing', count: undefined }])
    assert.equal(p.watching, 0, 'no watch outlives its check')
  })

  it('a response (DOM change, request, navigation) within the window, at the press or after the click, is no dead click', () => {
    for (const when of ['after click', 'at press', 'activity'] as const) {
      const p = page()
      const el = {}
      p.signals.press(el, true)
      if (when === 'at press') p.respond()
      p.signals.click(click(el, 'works'))
      p.advance(100)
      if (when === 'after click') p.respond()
      if (when === 'activity') p.signals.activity()
      p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS)
      assert.deepEqual(p.events.map((e) => e.type), [], when)
      assert.equal(p.watching, 0, when)
    }
  })

  it('a link the browser follows, and elements not acting on clicks, are never dead; a hidden page drops the check', () => {
    const p = page()
    p.signals.click(click({}, 'link', { followed: () => true }))
    p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS)
    p.signals.press({}, false)
    assert.equal(p.watching, 0, 'a press on a plain element watches nothing')
    p.signals.click(click({}, 'div', { checked: false }))
    p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS)
    p.signals.click(click({}, 'leaving'))
    p.advance(1000)
    p.signals.hide()
    p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS)
    assert.deepEqual(p.events.map((e) => e.type), [])
    assert.equal(p.watching, 0)
  })

  it('one check at a time: a press elsewhere ends the one before unreported; clicks on the same element keep the first', () => {
    const p = page({ rageClicks: false, deadClicks: { windowMs: 1000 } })
    const first = {}
    p.signals.click(click(first, 'first'))
    p.advance(500)
    p.signals.click(click(first, 'first'))
    p.advance(500)
    assert.equal(p.events.length, 1, 'the first click\'s window, not the second\'s')
    p.signals.click(click(first, 'first'))
    p.advance(400)
    const second = {}
    p.signals.press(second, true)
    assert.equal(p.watching, 1)
    p.signals.click(click(second, 'second'))
    p.advance(1000)
    assert.deepEqual(p.events.map((e) => e.selector), ['button#first', 'button#second'], 'the superseded check was not reported')
  })

  it('rage: six fast clicks make one RAGE_CLICK with count 6 once the burst ends, whatever the clicks did', () => {
    const p = page({ ...DEFAULTS, deadClicks: false })
    const el = {}
    for (let i = 0; i < 6; i++) {
      p.signals.click(click(el, 'pay'))
      p.respond()
      p.advance(100)
    }
    assert.deepEqual(p.events.map((e) => e.type), [], 'sent when the burst ends')
    p.advance(DEFAULT_RAGE_CLICK_WINDOW_MS)
    assert.deepEqual(p.events, [{ type: 'RAGE_CLICK', url: 'https://shop.example/cart', selector: 'button#pay', text: 'pay', count: 6 }])
  })

  it('rage needs `count` clicks within `windowMs` on one element: slower clicks, other elements and selecting text are none', () => {
    const p = page({ ...DEFAULTS, deadClicks: false })
    const el = {}
    for (let i = 0; i < 4; i++) {
      p.signals.click(click(el, 'slow'))
      p.advance(600)
    }
    p.signals.click(click({}, 'a'))
    p.signals.click(click({}, 'b'))
    p.signals.click(click({}, 'c'))
    const text = {}
    for (let i = 0; i < 3; i++) p.signals.click(click(text, 'paragraph', { checked: false, selected: () => true }))
    p.advance(5000)
    assert.deepEqual(p.events.map((e) => e.type), [])
    const fast = {}
    p.signals.click(click(fast, 'fast'))
    p.signals.click(click(fast, 'fast'))
    p.signals.click(click(fast, 'fast'))
    p.signals.click(click({}, 'other'))
    assert.deepEqual(p.events.map((e) => [e.type, e.count]), [['RAGE_CLICK', 3]], 'a click elsewhere ends the burst')
  })

  it('a hidden page sends the rage burst at once; a page clicked in a loop sends at most MAX_CLICK_SIGNALS_PER_PAGE', () => {
    const p = page()
    const el = {}
    for (let i = 0; i < 4; i++) p.signals.click(click(el, 'pay'))
    p.signals.hide()
    assert.deepEqual(p.events.map((e) => [e.type, e.count]), [['RAGE_CLICK', 4]])
    for (let i = 0; i < 200; i++) {
      const target = {}
      for (let n = 0; n < 3; n++) p.signals.click(click(target, `b${i}`))
      p.advance(DEFAULT_DEAD_CLICK_WINDOW_MS)
    }
    assert.equal(p.events.length, MAX_CLICK_SIGNALS_PER_PAGE)
  })

  it('sends nothing the service would cut or refuse: a long selector, an endless burst', () => {
    const p = page({ ...DEFAULTS, deadClicks: false })
    const el = {}
    for (let i = 0; i < MAX_CLICK_COUNT + 5; i++) {
      p.signals.click(click(el, 'x'.repeat(400)))
      p.advance(1)
    }
    p.signals.hide()
    assert.deepEqual(p.events.map((e) => [String(e.selector).length, e.count]), [[MAX_SELECTOR_LENGTH, MAX_CLICK_COUNT]])
  })
})
