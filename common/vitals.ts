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
 * library and Sentry use): milliseconds, CLS unitless. Each is a bucket step (VITAL_STEPS).
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
 * The steps of the buckets in each power of ten: a page's histogram counts a value in the smallest step at or above it.
 * Every threshold is a step, so ratings counted from buckets are exact; consecutive steps are at most 20% apart, so a
 * p75 read as its bucket's step is never below the true one and at most 20% above it. Sixteen buckets a decade keep
 * the report's reads small: a realistic metric spans two decades.
 */
export const VITAL_STEPS = [1, 1.2, 1.5, 1.8, 2, 2.2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9] as const

/**
 * The bucket a value is counted in: the smallest step of VITAL_STEPS times a power of ten at or above it (0 for 0).
 *
 * @example
 * vitalBucket(2501) // 3000
 * vitalBucket(0.0123) // 0.015
 */
export function vitalBucket(value: number): number {
  if (!(value > 0)) return 0
  const power = 10 ** Math.floor(Math.log10(value))
  // toPrecision undoes float noise (0.3 / 0.1 is 2.9999…) before comparing, and in the product.
  const mantissa = Number((value / power).toPrecision(12))
  const step = VITAL_STEPS.find((s) => s >= mantissa) ?? 10
  return Number((step * power).toPrecision(12))
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
