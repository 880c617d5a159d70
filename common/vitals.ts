/*
 * Core Web Vitals as the service, the dashboard and docs read them: the metrics, web.dev's rating thresholds and the
 * rounding the page counters keep. Pure and dependency-free, like the rest of common/.
 */

export const VITAL_NAMES = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const
export type VitalName = (typeof VITAL_NAMES)[number]

export const VITAL_RATINGS = ['good', 'needs-improvement', 'poor'] as const
export type VitalRating = (typeof VITAL_RATINGS)[number]

/**
 * The most a value may be and still rate good, then needs-improvement (web.dev's thresholds, which the `web-vitals`
 * library and Sentry use): milliseconds, CLS unitless. Each has at most two significant digits, which vitalBucket keeps.
 */
export const VITAL_THRESHOLDS: Readonly<Record<VitalName, readonly [good: number, needsImprovement: number]>> = {
  LCP: [2500, 4000],
  INP: [200, 500],
  CLS: [0.1, 0.25],
  FCP: [1800, 3000],
  TTFB: [800, 1800],
}

export const isVitalName = (name: string): name is VitalName => (VITAL_NAMES as readonly string[]).includes(name)

/** A value's rating: good up to the first threshold, needs-improvement up to the second, poor beyond. */
export function ratingOf(name: VitalName, value: number): VitalRating {
  const [good, fair] = VITAL_THRESHOLDS[name]
  return value <= good ? 'good' : value <= fair ? 'needs-improvement' : 'poor'
}

/**
 * A value rounded up to two significant digits: the bucket a page's histogram counts it in. Rounding up never
 * crosses a threshold (each has two significant digits), so ratings counted from buckets are exact, and a p75 read
 * from them is at most one bucket (under 10%) above the true one, never below.
 *
 * @example
 * vitalBucket(2501) // 2600
 * vitalBucket(0.0123) // 0.013
 */
export function vitalBucket(value: number): number {
  if (!(value > 0)) return 0
  const scale = 10 ** (Math.floor(Math.log10(value)) - 1)
  // Division and toPrecision undo float noise (0.013 / 0.001 is 12.999…) before rounding up.
  return Number((Math.ceil(Number((value / scale).toPrecision(12))) * scale).toPrecision(2))
}

/**
 * A value as people read it: CLS with three decimals, times in ms below a second and in seconds above.
 *
 * @example
 * formatVital('LCP', 4213) // '4.2 s'
 * formatVital('CLS', 0.1234) // '0.123'
 */
export function formatVital(name: VitalName, value: number): string {
  if (name === 'CLS') return value.toFixed(3)
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`
}
