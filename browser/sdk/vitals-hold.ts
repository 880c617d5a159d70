import type { VitalName, VitalRating } from '../../common/vitals.ts'
import { MAX_ELEMENT_LENGTH } from '../../common/limits.ts'
import type { SdkEvent } from './queue.ts'

/** A metric as the vitals chunk (vitals.ts) reports it, from web-vitals: its element only where it names one. */
export interface Vital { name: VitalName; value: number; rating: VitalRating; element?: string }

/** What the SDK hands the vitals chunk when it has loaded. */
export interface VitalsHost {
  report: (vital: Vital) => void
}

type Emit = (event: Omit<SdkEvent, 'id' | 'createdAt'>) => void

/**
 * The page view's Core Web Vitals, held until the page is hidden: web-vitals reports INP and CLS only then (and may
 * report a metric again as it changes), so each metric's latest value waits and `release` queues them all, as
 * WEB_VITAL events, before the hidden page's last batch is built. A metric released is not sent again for the page
 * view; `restore` (a page back from the back/forward cache, which web-vitals measures anew) starts a new one.
 */
export function holdVitals(emit: Emit, url: () => string) {
  const held = new Map<string, Omit<SdkEvent, 'id' | 'createdAt'>>()
  const sent = new Set<string>()
  return {
    report: (v: Vital): void => {
      if (sent.has(v.name)) return
      held.set(v.name, { type: 'WEB_VITAL', url: url(), name: v.name, value: v.value, rating: v.rating, element: v.element?.slice(0, MAX_ELEMENT_LENGTH) || undefined })
    },
    release: (): void => {
      for (const [name, event] of held) {
        sent.add(name)
        emit(event)
      }
      held.clear()
    },
    restore: (): void => {
      held.clear()
      sent.clear()
    },
  }
}
