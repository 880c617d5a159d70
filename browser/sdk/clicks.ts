import { MAX_CLICK_COUNT, MAX_CLICK_SIGNALS_PER_PAGE, MAX_SELECTOR_LENGTH } from '../../common/limits.ts'
import type { SdkEvent } from './queue.ts'

/*
 * Rage clicks and dead clicks. The rules are DOM-free, with the clock, the timers and the watch for a response passed
 * in, so they are unit-tested in Node; capture.ts feeds them the page's presses, clicks, requests and navigations.
 */

export interface ClickSignalOptions {
  /** RAGE_CLICK: at least `count` clicks on one element within `windowMs`; false: none. */
  rageClicks: { count: number; windowMs: number } | false
  /** DEAD_CLICK: a click on a link or button followed by nothing within `windowMs`; false: none. */
  deadClicks: { windowMs: number } | false
}

/** A click as the detectors see it: its element (compared by identity), named as its CLICK event names it. */
export interface Click {
  el: object
  selector: string
  text: string
  url: string
  /** Whether the element is one a click should visibly act on (a link, a button, an element with onclick). */
  checked: boolean
  /** Read when the window ends: whether the browser itself acted on the click (it follows a link). */
  followed(): boolean
  /** Read when a burst ends: whether the clicks selected the element's text (a triple click), which is no rage. */
  selected(): boolean
}

/** What the detectors need of the page. `later` gives the function that cancels its timer. */
export interface ClickEnv {
  now(): number
  later(fn: () => void, ms: number): () => void
  /** Watches the page for a response to a click (a DOM change, a scroll…), calls `seen` on one, and gives the function that stops watching. */
  watch(seen: () => void): () => void
}

type Emit = (event: Omit<SdkEvent, 'id' | 'createdAt'>) => void

/**
 * The detectors of one page. A rage click is sent once its burst ends (a click on another element, a pause of
 * `windowMs`, or the page hidden), with the burst's count. One dead-click check runs at a time: pressing another
 * element ends the one before without a report, and clicking the same element again keeps the first.
 */
export function makeClickSignals(o: ClickSignalOptions, emit: Emit, env: ClickEnv) {
  let left = MAX_CLICK_SIGNALS_PER_PAGE
  const send = (type: string, c: Click, count?: number) => {
    // Within the service's limits: it would refuse the whole batch for a larger count, and cut a longer selector (ids
    // and class names can be of any length) with a marker.
    if (left-- > 0) emit({ type, url: c.url, selector: c.selector.slice(0, MAX_SELECTOR_LENGTH), text: c.text || undefined, count: count && Math.min(count, MAX_CLICK_COUNT) })
  }

  /** The burst of clicks on one element: its first click, the times of its last clicks, its size, whether it is rage. */
  let first: Click | null = null
  let times: number[] = []
  let count = 0
  let rage = false
  let stopBurst = () => {}
  const endBurst = () => {
    stopBurst()
    if (first && rage && !first.selected()) send('RAGE_CLICK', first, count)
    first = null
  }

  /** The element being checked, from its press (or its click when no press came first), and its click once made. */
  let checking: object | null = null
  let clicked: Click | null = null
  let stopCheck = () => {}
  /** An element whose press the page answered before its click came: the click did its work. */
  let answered: object | null = null
  const settle = (seen: boolean) => {
    if (seen && checking && !clicked) answered = checking
    stopCheck()
    checking = clicked = null
  }
  const arm = (el: object) => {
    settle(false)
    answered = null
    checking = el
    stopCheck = env.watch(() => { settle(true) })
  }

  return {
    /** A pointer pressed on an element: menus that open on press answer before the click, so the watch starts here. */
    press: (el: object, acting: boolean): void => {
      if (o.deadClicks && acting && checking !== el) arm(el)
    },
    click: (c: Click): void => {
      if (o.rageClicks) {
        const { count: least, windowMs } = o.rageClicks
        const now = env.now()
        if (first?.el !== c.el || now - (times.at(-1) ?? now) > windowMs) {
          endBurst()
          first = c
          times = []
          count = 0
          rage = false
        }
        count++
        times = [...times, now].slice(-least)
        rage ||= times.length >= least && now - (times[0] ?? now) <= windowMs
        stopBurst()
        stopBurst = env.later(endBurst, windowMs)
      }
      const dead = o.deadClicks
      if (!dead || !c.checked) return
      if (answered === c.el) {
        answered = null
        return
      }
      if (checking !== c.el) arm(c.el)
      if (clicked) return
      clicked = c
      const stopWatch = stopCheck
      const cancel = env.later(() => {
        settle(false)
        if (!c.followed()) send('DEAD_CLICK', c)
      }, dead.windowMs)
      stopCheck = () => {
        stopWatch()
        cancel()
      }
    },
    /** A request or a navigation: whatever is being checked did something. */
    activity: (): void => { settle(true) },
    /** The page is hidden: a check still running is dropped (what it would have done is unknown), a rage burst sent. */
    hide: (): void => {
      settle(false)
      endBurst()
    },
  }
}

export type ClickSignals = ReturnType<typeof makeClickSignals>
