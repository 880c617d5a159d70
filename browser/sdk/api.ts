import { MAX_ENVIRONMENT_LENGTH, MAX_RELEASE_LENGTH } from '../../common/limits.ts'
import type { Core } from './core.ts'
import { errorEvent, fingerprintOf, messageOf, type GroupOptions } from './errors.ts'
import { makeVisitor, text, type Traits, type VisitorFields } from './visitor.ts'

/*
 * The public functions of the SDK (window.Sessionwatch), DOM-free: index.ts passes in how to start in a page, so
 * the rules of the calls (before and after init, consent, never throwing) are unit-tested in Node.
 */

/** Runs `fn` so that nothing it throws reaches the page: a broken SDK must not break it. */
export const guard = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A): void => {
  try { fn(...args) } catch { /* never into the page */ }
}

/** Only true grants consent: a page's script may pass anything, and a consent setting must fail closed. */
const granting = (value: unknown): boolean => value === true

/** The init options this layer reads; the rest are the page's (index.ts). */
export interface ApiOptions {
  /** The site's release and environment (e.g. production), carried by every batch of events. */
  release?: string
  environment?: string
  /** false: nothing is sent or stored until `consent(true)` (default true). */
  consent?: boolean
}

/** A started SDK: its core, its recorder's stats, and consent applied to both. */
export interface Started<R> {
  core: Core
  recording(): R
  consent(granted: boolean): void
}

/** init's release and environment as every batch carries them: cut to their limits, left out when empty. */
export const labelsOf = (o: ApiOptions): VisitorFields => ({
  release: text(o.release, MAX_RELEASE_LENGTH) || undefined,
  environment: text(o.environment, MAX_ENVIRONMENT_LENGTH) || undefined,
})

/**
 * The SDK's functions around `start`, which init calls once with the options, whether the visitor consents, and
 * what every batch of events says of its visitor. `page` is the URL of errors and reports.
 */
export function makeApi<O extends ApiOptions, R>(start: (options: O, granted: boolean, fields: () => VisitorFields) => Started<R>, page: () => string) {
  /** Who the visitor is: identify and setTags work before init too, and every batch reads it when it is built. */
  const visitor = makeVisitor()
  /** A consent() call made before init: it outranks init's `consent` option, which is only the page's default. */
  let consentBeforeInit: boolean | undefined
  let state: Started<R> | null = null

  return {
    /** Starts recording. Calling it again does nothing; it never throws. */
    init: guard((options: O) => {
      const labels = labelsOf(options)
      // Left out means the default, true; null (a choice not made yet, say) holds back like any other value.
      state ??= start(options, consentBeforeInit ?? (options.consent === undefined || granting(options.consent)), () => ({ ...visitor.fields(), ...labels }))
    }),
    /** Records the visitor's own bug report, with the page's `fingerprint` when given, and sends it at once. */
    report: guard((message: unknown, options?: GroupOptions) => {
      state?.core.record({ type: 'USER_REPORT', message: messageOf(message), url: page(), fingerprint: fingerprintOf(options) })
      void state?.core.flush()
    }),
    /**
     * Records an ERROR from anything the page caught (an Error, a string, any value), with its message, stack and
     * the page's URL, grouped by `fingerprint` when given; it leaves soon after (or after the batch in flight).
     */
    captureError: guard((error: unknown, options?: GroupOptions) => {
      state?.core.record(errorEvent(error, options, page()))
      state?.core.flushSoon()
    }),
    /** Names the visitor for every later batch: the last call wins, traits included; an empty id is ignored. */
    identify: guard((userId: string | number, traits?: Traits) => { visitor.identify(userId, traits) }),
    /** Merges tags into the visit's (null or undefined removes one); every later batch carries them all. */
    setTags: guard((tags: Record<string, string | number | boolean | null | undefined>) => { visitor.setTags(tags) }),
    /** Grants (true) or withdraws (anything else) the visitor's consent; before init it is kept for init. */
    consent: guard((granted: boolean) => {
      if (state) state.consent(granting(granted))
      else consentBeforeInit = granting(granted)
    }),
    /** What was sent, what waits, and what was dropped by reason; null before init. */
    stats: () => (state ? { ...state.core.stats(), recording: state.recording() } : null),
  }
}
