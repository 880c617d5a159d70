import { onCLS, onFCP, onINP, onLCP, onTTFB, type MetricType } from 'web-vitals/attribution'
import type { VitalsHost } from './vitals-hold.ts'

/*
 * The Core Web Vitals chunk (/sdk/vitals.js, window.SessionwatchVitals): Google's web-vitals, attribution build, loaded
 * by the SDK apart from sdk.js so that the SDK stays small. It reports to the SDK, which holds and sends (vitals-hold.ts).
 */

let started = false

/** Measures LCP, INP, CLS, FCP and TTFB of the page, each reported to `host` with the element the metric names. */
export function start(host: VitalsHost): void {
  if (started) return
  started = true
  const report = (metric: MetricType, element?: string) => {
    host.report({ name: metric.name, value: metric.value, rating: metric.rating, element })
  }
  onLCP((m) => { report(m, m.attribution.target) })
  onINP((m) => { report(m, m.attribution.interactionTarget) })
  onCLS((m) => { report(m, m.attribution.largestShiftTarget) })
  onFCP((m) => { report(m) })
  onTTFB((m) => { report(m) })
}
