/**
 * The browser SDK in Node: its public functions (browser/sdk/api.ts) around its core (core.ts), as index.ts wires
 * them in a page, with the transport and sessionStorage replaced by fakes that record what the SDK hands them.
 */
import { makeApi, type ApiOptions } from '../../browser/sdk/api.ts'
import { makeCore, type Core, type CoreOptions, type SessionStore } from '../../browser/sdk/core.ts'
import type { SendResult, Transport } from '../../browser/sdk/transport.ts'
import { recordingSchemas } from '../../src/recording/schema.ts'
import { buildValidator } from '../../src/http/validation.ts'
import { IngestBody, ingestSchemas } from '../../src/contract/batch.ts'
import { sharedSchemas } from '../../src/sessions/schema.ts'

export const PAGE = 'https://shop.example/cart?step=2'

/** A batch as the SDK posts it. */
export interface Batch {
  sessionKey: string
  batchId: string
  page: string
  events: { id: string; type: string; message?: string; createdAt: number }[]
  user?: { id: string; traits?: Record<string, string | number | boolean> }
  tags?: Record<string, string>
  release?: string
  environment?: string
}

/** sessionStorage as a Map, with every write and removal logged. */
export function fakeStorage() {
  const items = new Map<string, string>()
  const log: string[] = []
  const store: SessionStore = {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => { log.push(`set ${key}`); items.set(key, value) },
    removeItem: (key) => { log.push(`remove ${key}`); items.delete(key) },
  }
  return { items, log, store }
}

/** A transport that keeps every body it is given, parsed, and answers `answer()` (stored, by default). */
export function fakeTransport(answer: () => SendResult = () => ({ ok: true })) {
  const posts: Batch[] = []
  const beacons: Batch[] = []
  const chunks: string[] = []
  const io: Transport = {
    send: (body) => { posts.push(JSON.parse(body) as Batch); return Promise.resolve(answer()) },
    beacon: (body) => { beacons.push(JSON.parse(body) as Batch); return true },
    sendChunk: (query) => { chunks.push(query.chunk); return Promise.resolve(answer()) },
    beaconChunk: (query) => { chunks.push(query.chunk); return true },
    isOwn: () => false,
  }
  return { io, posts, beacons, chunks }
}

/** Lets the fake sends settle (they answer at once; the SDK awaits them). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * The SDK's functions with a core made on init, over fake I/O. `core()` throws before init. Options: init's
 * release, environment and consent, and the core's own; `page` is the page's URL.
 */
export function sdkInNode(answer?: () => SendResult, page = PAGE) {
  const storage = fakeStorage()
  const transport = fakeTransport(answer)
  let core: Core | null = null
  const api = makeApi((options: ApiOptions & Partial<CoreOptions>, granted, fields) => {
    const started = makeCore({ sessionTimeoutMs: 1_800_000, maxBatchEvents: 50, maxQueue: 1000, ...options, consent: granted },
      transport.io, () => storage.store, page, fields)
    core = started
    return { core: started, recording: () => null, consent: (yes) => { started.consent(yes) } }
  }, () => page)
  const started = (): Core => {
    if (!core) throw new Error('init first')
    return core
  }
  return { ...api, storage, transport, core: started }
}

/** The service's own validation of an ingest body (ajv as the app configures it, for bodies). */
export function serverAccepts(batch: unknown): { valid: boolean; errors: unknown } {
  const schemas = Object.fromEntries([...sharedSchemas, ...recordingSchemas, ...ingestSchemas].map((schema): [string, object] => [(schema as { $id?: string }).$id ?? '', schema]))
  const validate = buildValidator(schemas)({ schema: IngestBody, httpPart: 'body' } as never) as unknown as ((data: unknown) => boolean) & { errors: unknown }
  return { valid: validate(batch), errors: validate.errors }
}
