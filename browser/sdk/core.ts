import { CONSENT_QUEUE_MAX } from '../../common/limits.ts'
import { makeQueue, type SdkEvent } from './queue.ts'
import { scrub } from '../../common/scrub.ts'
import { isTrigger, type SessionStore } from './sampling.ts'
import { scrubEvent } from './scrub.ts'
import { sendWithRetry, type ChunkQuery, type SendResult, type Transport } from './transport.ts'

export type { SessionStore }
import type { VisitorFields } from './visitor.ts'

/*
 * The visit as the SDK keeps it: the session key, the queue, the batches and consent. DOM-free, with its transport
 * and storage passed in, so it is unit-tested in Node; index.ts wires it to the page.
 */

export interface CoreOptions {
  /** A new session starts after this long without events. */
  sessionTimeoutMs: number
  maxBatchEvents: number
  maxQueue: number
  /** Whether the visitor has consented: until then nothing is sent or stored. */
  consent: boolean
}


export const SESSION_KEY = 'sw_session'
/**
 * flushSoon sends after this delay rather than at once: the errors of one cascade (a failed render throwing in
 * every component) then leave in one request, and still long before the next interval.
 */
const FLUSH_SOON_MS = 100
/** The first send and five retries. */
const ATTEMPTS = 6
/** What a send comes to once consent is withdrawn: refused for good, so its retries end. */
const WITHDRAWN: SendResult = { ok: false, fatal: true, retryAfterMs: null }

const rand = () => Math.random().toString(36).slice(2, 10)

/**
 * The SDK's state. `storage` is a getter because merely reading `sessionStorage` throws where storage is blocked;
 * `fields` gives what every batch of events says of its visitor (identify, setTags, release, environment), read
 * when the batch is built.
 */
export function makeCore(o: CoreOptions, io: Transport, storage: () => SessionStore, landing: string, fields: () => VisitorFields) {
  // The landing page's URL leaves with every batch: a token in it (an OAuth redirect's fragment) is scrubbed once here.
  const page = scrub(landing)
  const queue = makeQueue(o.maxQueue)
  /** Events captured while waiting for consent: at most CONSENT_QUEUE_MAX, the oldest dropped first. */
  const held: SdkEvent[] = []
  let granted = o.consent
  /** Withdrawals of consent so far: a send begun before the last one is refused, retries included. */
  let era = 0
  let sent = 0
  let inFlight: { body: string; count: number } | null = null

  const store = <T>(use: (s: SessionStore) => T): T | null => {
    try { return use(storage()) } catch { return null }
  }
  /** The session key, saved with the time of this event (the inactivity timeout runs from the last one). Only with consent. */
  const sessionKey = (): string => {
    const now = Date.now()
    const saved = store((s) => JSON.parse(s.getItem(SESSION_KEY) ?? 'null') as { k: string; t: number } | null)
    const key = saved && now - saved.t < o.sessionTimeoutMs ? saved.k : `${rand()}${rand()}`
    store((s) => { s.setItem(SESSION_KEY, JSON.stringify({ k: key, t: now })) })
    return key
  }
  let currentKey = granted ? sessionKey() : ''

  /** Whether the visit has had an event that makes a held recording leave (sampling.ts), and who waits for one. */
  let triggered = false
  const waiting: (() => void)[] = []
  /** What runs first when the page is hidden, so that what waits for the page's end leaves in its last batch. */
  const beforeHide: (() => void)[] = []

  const record = (event: Omit<SdkEvent, 'id' | 'createdAt'>) => {
    if (!triggered && isTrigger(event)) {
      triggered = true
      for (const listener of waiting.splice(0)) listener()
    }
    const queued = { ...scrubEvent(event), id: `${rand()}${rand()}`, createdAt: Date.now() }
    if (granted) {
      currentKey = sessionKey()
      queue.push(queued)
    } else if (held.push(queued) > CONSENT_QUEUE_MAX) {
      // The oldest go, so that what the visitor does up to the moment of consent arrives whole.
      held.shift()
      queue.drop('consent', 1)
    }
  }
  const batchOf = (events: SdkEvent[]) =>
    JSON.stringify({ sessionKey: currentKey, batchId: `${rand()}${rand()}`, sentAt: Date.now(), page, ...fields(), events })

  /** A POST for this era of consent: once consent is withdrawn it sends nothing more. The recorder gets one too. */
  const sender = () => {
    const mine = era
    return (body: string): Promise<SendResult> => (granted && era === mine ? io.send(body) : Promise.resolve(WITHDRAWN))
  }
  /** The recorder's chunk upload for this era of consent, likewise. */
  const chunkSender = () => {
    const mine = era
    return (query: ChunkQuery, data: Uint8Array): Promise<SendResult> =>
      (granted && era === mine ? io.sendChunk(query, data) : Promise.resolve(WITHDRAWN))
  }

  const flush = async (): Promise<void> => {
    if (!granted || inFlight !== null || queue.size === 0) return
    const events = queue.take(o.maxBatchEvents)
    const mine = era
    inFlight = { body: batchOf(events), count: events.length }
    const delivery = await sendWithRetry(sender(), inFlight.body, ATTEMPTS)
    // A withdrawal meanwhile counted this batch as dropped and cleared inFlight, which may be a newer batch by now.
    if (era !== mine) return
    if (delivery === 'sent') sent += events.length
    else queue.drop(delivery, events.length)
    inFlight = null
  }
  let soon = false
  // While a batch is in flight flush() does nothing, so the timer waits for it rather than for the next interval.
  const flushSoon = () => {
    if (soon) return
    soon = true
    setTimeout(() => { soon = false; if (inFlight) flushSoon(); else void flush() }, FLUSH_SOON_MS)
  }

  return {
    record,
    flush,
    flushSoon,
    /** A closing page: everything pending leaves by beacon. A batch already in flight goes again with the same id. */
    flushOnHide: (): void => {
      for (const hook of beforeHide) hook()
      if (!granted) return
      const bodies = inFlight ? [inFlight.body] : []
      while (queue.size > 0) bodies.push(batchOf(queue.take(o.maxBatchEvents)))
      for (const body of bodies) {
        if (!io.beacon(body)) void io.send(body)
      }
    },
    /**
     * Grants consent (what was held is queued and leaves soon, in a session stored from now on) or withdraws it:
     * everything held, queued or in flight is dropped, the session key leaves sessionStorage, and new events are
     * held again until the next grant.
     */
    consent: (yes: boolean): void => {
      if (!yes) {
        queue.drop('consent', held.splice(0).length + queue.take(queue.size).length + (inFlight?.count ?? 0))
        inFlight = null
        era++
        granted = false
        store((s) => { s.removeItem(SESSION_KEY) })
      } else if (!granted) {
        granted = true
        currentKey = sessionKey()
        for (const event of held.splice(0)) queue.push(event)
        flushSoon()
      }
    },
    /** Runs `hook` at the start of every flushOnHide (the held vitals, a rage burst): it must not throw. */
    beforeHide: (hook: () => void): void => { beforeHide.push(hook) },
    granted: () => granted,
    /** Calls `listener` once this page records a trigger, or at once when it has. */
    onTrigger: (listener: () => void): void => {
      if (triggered) listener()
      else waiting.push(listener)
    },
    /** For the recorder, which runs only with consent: the session key, refreshed like an event refreshes it. */
    sessionKey: () => (granted ? (currentKey = sessionKey()) : currentKey),
    sender,
    chunkSender,
    beacon: (body: string): boolean => granted && io.beacon(body),
    beaconChunk: (query: ChunkQuery, data: Uint8Array): boolean => granted && io.beaconChunk(query, data),
    stats: () => ({ sent, queued: queue.size + held.length, dropped: { ...queue.dropped } }),
  }
}

export type Core = ReturnType<typeof makeCore>
