import {
  DEFAULT_DEAD_CLICK_WINDOW_MS, DEFAULT_MAX_CHUNK_BYTES, DEFAULT_RAGE_CLICK_COUNT, DEFAULT_RAGE_CLICK_WINDOW_MS, DEFAULT_RECORD_BUFFER_MS, DEFAULT_RECORD_CHECKOUT_MS,
  DEFAULT_SLOW_THRESHOLD_MS, RECORD_CHUNK_MS,
} from '../../common/limits.ts'
import { guard, makeApi, type ApiOptions, type Started } from './api.ts'
import { clearCarry } from './buffer.ts'
import { installCapture, pageWatch, type CaptureOptions } from './capture.ts'
import { makeClickSignals, type ClickSignals } from './clicks.ts'
import { makeCore, type Core } from './core.ts'
import type { GroupOptions } from './errors.ts'
import { bodyFilter, maskFieldsOf, type NetworkBodies } from './privacy.ts'
import type { RecorderHost, RecorderStats, Recording } from './recorder.ts'
import { markTriggered, planOf, PLAN_KEY } from './sampling.ts'
import { makeTransport } from './transport.ts'
import type { Traits, VisitorFields } from './visitor.ts'
import { holdVitals, type VitalsHost } from './vitals-hold.ts'

export type { GroupOptions, NetworkBodies, Traits }

export interface Options extends Partial<CaptureOptions>, ApiOptions {
  /** The project's public ingest key (sw_ing_…). */
  ingestKey: string
  /** The Sessionwatch service's base URL; default: the origin serving the script. */
  endpoint?: string
  /** A new session starts after this long without events (default 30 minutes). */
  sessionTimeoutMs?: number
  /** How often queued events are sent (default 5 s), and the most per batch (default 50). */
  flushIntervalMs?: number
  maxBatchEvents?: number
  /** Events held at most while the network is down; beyond it new ones are dropped and counted (default 1000). */
  maxQueue?: number
  /**
   * Screen recording with rrweb, loaded after the page from `recorderUrl` (default true). `'onError'`: held in memory
   * and sent only once the visit has an error (see recordBufferMs), as recordSampleRate 0.
   */
  record?: boolean | 'onError'
  /** Share of visits recorded whole (default 1); decided once per visit. */
  recordSampleRate?: number
  /** Share of the visits not recorded whole that are held until an error (default 1); decided once per visit. */
  recordOnErrorSampleRate?: number
  /** A held recording keeps at least this much of the visit before its error (default 60 s). */
  recordBufferMs?: number
  /** Default: `<endpoint>/sdk/recorder.js`. */
  recorderUrl?: string
  /** A new full snapshot of the page, opening a chunk, at most this often while it changes (default 5 min). */
  recordCheckoutMs?: number
  /** A recording chunk that continues the previous one leaves this often while the page changes (default 5 s). */
  recordChunkMs?: number
  /** Compressed chunks above this are dropped and counted (default 512 KiB, the service's default limit). */
  recordMaxChunkBytes?: number
  /** Bodies of failed requests (default), none, or of failed requests whose URL matches a pattern. */
  networkBodies?: NetworkBodies
  /** Further JSON keys and form fields masked in bodies, and INPUT values of fields so named. */
  maskFields?: readonly string[]
  /** RAGE_CLICK: at least `count` clicks on one element within `windowMs` (default 3 within 1000 ms); false: none. */
  rageClicks?: { count?: number; windowMs?: number } | false
  /** DEAD_CLICK: a click on a link or button followed by no DOM change, navigation or request within `windowMs` (default 2500); false: none. */
  deadClicks?: { windowMs?: number } | false
  /** WEB_VITAL events (LCP, INP, CLS, FCP, TTFB), measured by a chunk loaded from `vitalsUrl` at start (default true). */
  vitals?: boolean
  /** Default: `<endpoint>/sdk/vitals.js`. */
  vitalsUrl?: string
}

/** The SDK's lazily loaded chunks, as they define themselves on window. */
interface Chunks {
  SessionwatchRecorder?: { start(h: RecorderHost): Recording | null; modes?: readonly string[] }
  SessionwatchVitals?: { start(h: VitalsHost): void }
}
const chunks = window as Chunks

/** Adds an async script to the page: the chunks load without delaying it. */
function load(src: string, onload: () => void): HTMLScriptElement {
  const script = document.createElement('script')
  script.src = src
  script.async = true
  script.onload = onload
  return document.head.appendChild(script)
}

/**
 * Rage and dead clicks (clicks.ts) and Core Web Vitals (the vitals chunk), each on unless its option is false. What
 * they hold for the page's end (a rage burst, the vitals) joins the hidden page's last batch.
 */
function startSignals(o: Options & { endpoint: string }, core: Core): ClickSignals {
  const rage = o.rageClicks !== false && { count: DEFAULT_RAGE_CLICK_COUNT, windowMs: DEFAULT_RAGE_CLICK_WINDOW_MS, ...o.rageClicks }
  const dead = o.deadClicks !== false && { windowMs: DEFAULT_DEAD_CLICK_WINDOW_MS, ...o.deadClicks }
  const signals = makeClickSignals({ rageClicks: rage, deadClicks: dead }, core.record, {
    now: () => performance.now(),
    later: (fn, ms) => {
      const timer = setTimeout(guard(fn), ms)
      return () => { clearTimeout(timer) }
    },
    watch: (seen) => pageWatch(guard(seen)),
  })
  core.beforeHide(guard(signals.hide))
  if (o.vitals !== false) {
    const vitals = holdVitals(core.record, () => location.href)
    core.beforeHide(guard(vitals.release))
    addEventListener('pageshow', guard((e: PageTransitionEvent) => { if (e.persisted) vitals.restore() }))
    const begin = guard(() => { chunks.SessionwatchVitals?.start({ report: guard(vitals.report) }) })
    if (chunks.SessionwatchVitals) begin()
    else load(o.vitalsUrl ?? `${o.endpoint.replace(/\/+$/, '')}/sdk/vitals.js`, begin)
  }
  return signals
}

/** Starts the SDK in the page: capture, timers, the closing page's beacon, and the recorder once the page has loaded. */
function start(options: Options, granted: boolean, fields: () => VisitorFields): Started<RecorderStats | null> {
  const o = {
    slowThresholdMs: DEFAULT_SLOW_THRESHOLD_MS, maxBodyChars: 4096, maskInputs: true, captureConsole: true, sessionTimeoutMs: 1_800_000,
    flushIntervalMs: 5000, maxBatchEvents: 50, maxQueue: 1000, endpoint: location.origin, record: true,
    recordCheckoutMs: DEFAULT_RECORD_CHECKOUT_MS, recordChunkMs: RECORD_CHUNK_MS, recordMaxChunkBytes: DEFAULT_MAX_CHUNK_BYTES,
    recordSampleRate: 1, recordOnErrorSampleRate: 1, recordBufferMs: DEFAULT_RECORD_BUFFER_MS, ...options,
  }
  const io = makeTransport({ endpoint: o.endpoint, ingestKey: o.ingestKey })
  const landing = location.href
  const storage = () => sessionStorage
  const core = makeCore({ ...o, consent: granted }, io, storage, landing, fields)
  const store = () => { try { return storage() } catch { return null } }

  installCapture({ ...o, bodies: bodyFilter(o.networkBodies, () => location.href), maskFields: maskFieldsOf(o.maskFields) }, core.record, guard, (url) => io.isOwn(url),
    startSignals(o, core))
  setInterval(guard(() => { void core.flush() }), o.flushIntervalMs)
  addEventListener('pagehide', guard(core.flushOnHide))
  document.addEventListener('visibilitychange', guard(() => { if (document.visibilityState === 'hidden') core.flushOnHide() }))

  let recording: Recording | null = null
  let script: HTMLScriptElement | null = null
  /**
   * Starts the recorder when recording is on, the visitor consents and the page has loaded: the recorder (rrweb,
   * ~30 KB) is fetched only then, so it never delays the page and never loads without consent.
   */
  const startRecording = guard(() => {
    if (!o.record || !core.granted() || recording || document.readyState !== 'complete') return
    const key = core.sessionKey()
    const { plan, triggered } = planOf(store(), key, o)
    if (plan === 'off') return
    const recorder = chunks.SessionwatchRecorder
    if (recorder) {
      // A recorder too old to hold a recording would send it whole: it does not start.
      if (plan === 'onError' && !recorder.modes?.includes('onError')) return
      const onTrigger = (listener: () => void) => {
        const fire = guard(() => { markTriggered(store(), key, plan); listener() })
        if (triggered) fire()
        else core.onTrigger(fire)
      }
      // A host per start: its sender refuses once consent is withdrawn, even for a chunk still being retried.
      recording = recorder.start({
        sessionKey: core.sessionKey, send: core.sender(), beacon: core.beacon, sendChunk: core.chunkSender(), beaconChunk: core.beaconChunk, page: landing,
        checkoutMs: o.recordCheckoutMs, chunkMs: o.recordChunkMs, maxChunkBytes: o.recordMaxChunkBytes,
        mode: plan, bufferMs: o.recordBufferMs, onTrigger,
      })
    } else {
      script ??= load(o.recorderUrl ?? `${o.endpoint.replace(/\/+$/, '')}/sdk/recorder.js`, startRecording)
    }
  })
  addEventListener('load', startRecording)
  startRecording()

  return {
    core,
    recording: () => recording?.() ?? null,
    consent(yes: boolean): void {
      core.consent(yes)
      // The visit's recording plan and what a page held for the next go with its session key.
      const storage = store()
      if (!yes && storage) {
        storage.removeItem(PLAN_KEY)
        clearCarry(storage)
      }
      if (yes) startRecording()
      // A recorder without stop (an older one, self-hosted) keeps running, but its sender no longer sends.
      else if (recording?.stop) {
        recording.stop()
        recording = null
      }
    },
  }
}

export const { init, report, captureError, identify, setTags, consent, stats } = makeApi(start, () => location.href)
