import { promisify } from 'node:util'
import { gunzip as gunzipCb } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { SOURCEMAP_LOOKUP_ENTRIES, SOURCEMAP_LOOKUP_TTL_MS } from './limits.ts'
import type { Db } from '../database.ts'
import { parseStack, type Frame } from './stack.ts'
import { canonicalDebugId, parseMap } from './map.ts'
import { loadedMap, mapFrame, unmappedFrame, type LoadedMap } from './frames.ts'
import type { ResolvedFrame } from '../contract/index.ts'
import { mapUrlsFor } from './urls.ts'
import * as store from './store.ts'

const gunzip = promisify(gunzipCb)

export interface ResolveOptions {
  /**
   * Debug IDs of the scripts, by the URL their frames print (what a Sentry event's debug_meta reports):
   * a frame whose script has one is mapped by it before its URL is tried.
   */
  debugIds?: ReadonlyMap<string, string>
}

/**
 * Maps stack frames to original source through the project's uploaded source maps, at read time:
 * events stored before their map was uploaded are mapped as soon as it is.
 */
export interface SourceMapResolver {
  /** The frames in the same order, each mapped when a stored map matches its script, else as it was (`mapped: false`). */
  resolveFrames(projectId: string, frames: readonly Frame[], options?: ResolveOptions): Promise<ResolvedFrame[]>
  /** An event's stack parsed (newest frame first) and resolved; null for an event without a stack. */
  resolveStack(projectId: string, stack: string | null): Promise<ResolvedFrame[] | null>
  /** Forgets what this process looked up for the project's scripts: after an upload or a delete, the next read asks again. */
  forget(projectId: string): void
}

export interface ResolverOptions {
  /** Estimated heap the parsed maps may take (config SOURCEMAP_CACHE_BYTES); the least recently used go first. */
  cacheBytes: number
  /** How long a lookup (a script's map, or that it has none) is trusted. */
  lookupTtlMs?: number
}

/**
 * The resolver the app decorates as `app.sourceMaps`: one per process, shared by every read.
 *
 * Two caches: what each script URL (or debug ID) resolves to — a map id or "none" — kept for
 * `lookupTtlMs`, so a page of events on unmapped scripts asks the database once, not once per event;
 * and the parsed maps by id, an LRU bounded by their estimated heap (frames.ts `heapOf`).
 * A map is parsed once however many frames ask for it at once.
 */
export function createResolver(db: Db, { cacheBytes, lookupTtlMs = SOURCEMAP_LOOKUP_TTL_MS }: ResolverOptions): SourceMapResolver {
  const lookups = new LRUCache<string, { mapId: string | null }>({ max: SOURCEMAP_LOOKUP_ENTRIES, ttl: lookupTtlMs })
  const pending = new Map<string, Promise<string | null>>()
  // Bumped by forget(): a lookup that started before must not store its (possibly stale) answer.
  const generations = new Map<string, number>()
  const maps = new LRUCache<string, LoadedMap, string>({
    // lru-cache wants a positive bound; 1 byte keeps nothing, as SOURCEMAP_CACHE_BYTES=0 asks.
    maxSize: Math.max(1, cacheBytes),
    sizeCalculation: (value) => value.size,
    fetchMethod: async (id, _stale, { context }) => {
      const data = await store.sourceMapData(db, context, id)
      if (data === null) return undefined
      return loadedMap(parseMap(await gunzip(data), id).map)
    },
  })

  const key = (projectId: string, kind: 'url' | 'debug', value: string) => `${projectId}\u0000${kind}\u0000${value}`

  // Whether a project has any map at all, trusted as long as a lookup: ingest maps every ERROR's frames
  // before grouping, and most projects upload no maps, so their frames skip the per-script lookups.
  const anyMaps = new LRUCache<string, { any: boolean }>({ max: SOURCEMAP_LOOKUP_ENTRIES, ttl: lookupTtlMs })
  const asking = new Map<string, Promise<boolean>>()
  function hasMaps(projectId: string): Promise<boolean> {
    const cached = anyMaps.get(projectId)
    if (cached) return Promise.resolve(cached.any)
    let one = asking.get(projectId)
    if (!one) {
      const generation = generations.get(projectId) ?? 0
      one = store.hasSourceMaps(db, projectId).then((any) => {
        if ((generations.get(projectId) ?? 0) === generation) anyMaps.set(projectId, { any })
        return any
      }).finally(() => { if (asking.get(projectId) === one) asking.delete(projectId) })
      asking.set(projectId, one)
    }
    return one
  }

  /** What each wanted key resolves to, asking the database once for all the misses. */
  async function lookup(projectId: string, urls: readonly string[], debugIds: readonly string[]): Promise<Map<string, string | null>> {
    const found = new Map<string, string | null>()
    const waits: Promise<void>[] = []
    const missing = { urls: [] as string[], debugIds: [] as string[] }
    const plan = (kind: 'url' | 'debug', values: readonly string[], into: string[]) => {
      for (const value of values) {
        const k = key(projectId, kind, value)
        const cached = lookups.get(k)
        const inFlight = pending.get(k)
        if (cached) found.set(k, cached.mapId)
        else if (inFlight) waits.push(inFlight.then((ref) => { found.set(k, ref) }))
        else into.push(value)
      }
    }
    plan('url', urls, missing.urls)
    plan('debug', debugIds, missing.debugIds)
    if (missing.urls.length + missing.debugIds.length > 0) {
      const generation = generations.get(projectId) ?? 0
      const query = queryRefs(projectId, missing.urls, missing.debugIds)
      const settle = (k: string, pick: (refs: Map<string, string | null>) => string | null) => {
        const one = query.then(pick)
        pending.set(k, one)
        waits.push(one.then((mapId) => {
          found.set(k, mapId)
          if ((generations.get(projectId) ?? 0) === generation) lookups.set(k, { mapId })
        }).finally(() => { if (pending.get(k) === one) pending.delete(k) }))
      }
      for (const url of missing.urls) settle(key(projectId, 'url', url), (refs) => refs.get(`url:${url}`) ?? null)
      for (const id of missing.debugIds) settle(key(projectId, 'debug', id), (refs) => refs.get(`debug:${id}`) ?? null)
    }
    await Promise.all(waits)
    return found
  }

  /** One query per kind: a URL takes the map stored for it exactly, else the `~/path` one with its path. */
  async function queryRefs(projectId: string, urls: readonly string[], debugIds: readonly string[]): Promise<Map<string, string | null>> {
    const refs = new Map<string, string | null>()
    const parsed = urls.map((url) => ({ url, candidates: mapUrlsFor(url) }))
    const [byUrl, byDebugId] = await Promise.all([
      store.findByUrls(db, projectId, [...new Set(parsed.flatMap((p) => p.candidates))]),
      store.findByDebugIds(db, projectId, debugIds),
    ])
    const stored = new Map(byUrl.map((row) => [row.url, row]))
    for (const { url, candidates } of parsed) {
      const best = candidates.find((candidate) => stored.has(candidate))
      refs.set(`url:${url}`, best === undefined ? null : stored.get(best)?.id ?? null)
    }
    for (const row of byDebugId) {
      if (row.debug_id !== null && !refs.has(`debug:${row.debug_id}`)) refs.set(`debug:${row.debug_id}`, row.id)
    }
    return refs
  }

  async function resolveFrames(projectId: string, frames: readonly Frame[], options: ResolveOptions = {}): Promise<ResolvedFrame[]> {
    const files = [...new Set(frames.flatMap((f) => (f.file === null ? [] : [f.file])))]
    if (files.length === 0 || !(await hasMaps(projectId))) return frames.map(unmappedFrame)
    const debugIdOf = (file: string) => {
      const raw = options.debugIds?.get(file)
      return raw === undefined ? undefined : canonicalDebugId(raw) ?? undefined
    }
    const refs = await lookup(projectId, files, files.flatMap((f) => debugIdOf(f) ?? []))
    const loaded = new Map<string, Promise<LoadedMap | undefined>>()
    const load = (mapId: string) => {
      let one = loaded.get(mapId)
      if (!one) {
        one = maps.fetch(mapId, { context: projectId })
        loaded.set(mapId, one)
      }
      return one
    }
    return Promise.all(frames.map(async (frame) => {
      if (frame.file === null) return unmappedFrame(frame)
      const debugId = debugIdOf(frame.file)
      const mapId = (debugId === undefined ? null : refs.get(key(projectId, 'debug', debugId))) ?? refs.get(key(projectId, 'url', frame.file)) ?? null
      const map = mapId === null ? undefined : await load(mapId)
      return map ? mapFrame(map, frame) : unmappedFrame(frame)
    }))
  }

  return {
    resolveFrames,
    resolveStack: async (projectId, stack) => (stack === null ? null : resolveFrames(projectId, parseStack(stack))),
    forget: (projectId) => {
      generations.set(projectId, (generations.get(projectId) ?? 0) + 1)
      anyMaps.delete(projectId)
      asking.delete(projectId)
      const prefix = `${projectId}\u0000`
      for (const k of lookups.keys()) if (k.startsWith(prefix)) lookups.delete(k)
      // A lookup still running may have read before the change: later reads must not join it.
      for (const k of pending.keys()) if (k.startsWith(prefix)) pending.delete(k)
    },
  }
}
