/** What the SDK uses of sessionStorage. */
export interface SessionStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/*
 * Which visits are recorded, and how: decided once per visit and kept across its pages in sessionStorage, beside its
 * session key. DOM-free, with its storage and random source passed in, so it is unit-tested in Node.
 */

/** Recorded whole, held in memory until the visit has a trigger (`record: 'onError'`), or not at all. */
export type RecordPlan = 'whole' | 'onError' | 'off'

export interface SampleOptions {
  record: boolean | 'onError'
  /** Share of visits recorded whole. */
  recordSampleRate: number
  /** Share of the other visits held until a trigger. */
  recordOnErrorSampleRate: number
}

export const PLAN_KEY = 'sw_record'

/** A share as given, within 0..1; anything not a number is the default, 1. */
const share = (value: unknown): number => (typeof value === 'number' && value >= 0 ? Math.min(value, 1) : 1)

/**
 * The visit's plan, and whether it already had a trigger (on an earlier page): read for `sessionKey`, else drawn and
 * saved. `record: 'onError'` records no visit whole. Without storage (blocked) each page draws again.
 */
export function planOf(store: SessionStore | null, sessionKey: string, o: SampleOptions, random: () => number = Math.random): { plan: RecordPlan; triggered: boolean } {
  if (o.record === false) return { plan: 'off', triggered: false }
  try {
    const saved = JSON.parse(store?.getItem(PLAN_KEY) ?? 'null') as { k?: unknown; m?: RecordPlan; e?: unknown } | null
    if (saved?.k === sessionKey && (saved.m === 'whole' || saved.m === 'onError' || saved.m === 'off')) return { plan: saved.m, triggered: saved.e === 1 }
  } catch { /* unreadable: drawn again */ }
  const plan: RecordPlan = random() < (o.record === 'onError' ? 0 : share(o.recordSampleRate)) ? 'whole'
    : random() < share(o.recordOnErrorSampleRate) ? 'onError' : 'off'
  save(store, { k: sessionKey, m: plan })
  return { plan, triggered: false }
}

/** Notes that the visit had a trigger: its later pages record from their start. */
export function markTriggered(store: SessionStore | null, sessionKey: string, plan: RecordPlan): void {
  save(store, { k: sessionKey, m: plan, e: 1 })
}

const save = (store: SessionStore | null, value: object) => {
  try { store?.setItem(PLAN_KEY, JSON.stringify(value)) } catch { /* storage full or blocked: this page still knows */ }
}

/**
 * What makes a held recording leave: an ERROR (captureError's too), a USER_REPORT, or an HTTP_ERROR whose answer was
 * a server error or none at all (a network failure: statusCode null or 0).
 */
export const isTrigger = (event: { type: string; statusCode?: number | null }): boolean =>
  event.type === 'ERROR' || event.type === 'USER_REPORT'
  || (event.type === 'HTTP_ERROR' && (event.statusCode == null || event.statusCode === 0 || event.statusCode >= 500))
