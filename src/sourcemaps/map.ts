import { AnyMap, decodedMappings, type SectionedSourceMapInput, type TraceMap } from '@jridgewell/trace-mapping'
import { byteSize } from '../util/limits.ts'
import { MAX_SOURCEMAP_BYTES } from './limits.ts'
import { invalidBody } from '../errors.ts'
import { DEBUG_ID_PATTERN } from './schema.ts'

/** What a map must be, said in every refusal so the uploader knows what to send instead. */
const WANTED = 'a source map is the version 3 JSON a bundler writes beside the bundle, with "mappings" and "sources" '
  + '(or "sections")'

/** A checked map: parsed for lookups, with its debug ID (canonical) when it carries one. */
export interface ParsedMap {
  map: TraceMap
  debugId: string | null
}

/**
 * Parses and checks a source map, the one way both the upload and the reads take a map in.
 * @jridgewell/trace-mapping decodes any string it is given and refuses almost nothing, so the
 * structure and every decoded segment are checked here: a map stored is a map every lookup can use.
 * Throws invalid_body naming `name` and the fault.
 *
 * @example
 * parseMap(fs.readFileSync('dist/app.js.map'), 'app.js.map').map // a TraceMap
 */
export function parseMap(bytes: Buffer, name: string): ParsedMap {
  const refuse = (problem: string) => invalidBody(`${name} is not a valid source map: ${problem}. (${WANTED}.)`, 'body')
  if (bytes.length > MAX_SOURCEMAP_BYTES) throw refuse(`it is ${bytes.length} bytes, over the ${byteSize(MAX_SOURCEMAP_BYTES)} allowed`)
  let text = bytes.toString('utf8')
  // The spec lets a map open with the XSSI guard `)]}'` on a line of its own.
  if (text.startsWith(')]}')) text = text.slice(text.indexOf('\n') + 1)
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw refuse(bytes.length === 0 ? 'it is empty' : `it is not JSON (${(error as Error).message})`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw refuse('it is not a JSON object')
  const json = raw as Record<string, unknown>
  if (json.version !== 3) {
    throw refuse(`its "version" is ${json.version === undefined ? 'missing' : JSON.stringify(json.version)}; only version 3 is accepted`)
  }
  if (json.sections === undefined) {
    if (typeof json.mappings !== 'string') throw refuse('it has no "mappings" string')
    if (!isArrayOf(json.sources, (s) => typeof s === 'string' || s === null)) throw refuse('it has no "sources" array of strings')
    if (!/^[A-Za-z0-9+/,;]*$/.test(json.mappings)) throw refuse('its "mappings" hold characters outside base64 VLQ')
    if (json.names !== undefined && !isArrayOf(json.names, (n) => typeof n === 'string')) throw refuse('its "names" is not an array of strings')
    if (json.sourcesContent != null && !isArrayOf(json.sourcesContent, (c) => typeof c === 'string' || c === null)) {
      throw refuse('its "sourcesContent" is not an array of strings')
    }
    if (json.ignoreList != null && !isArrayOf(json.ignoreList, Number.isInteger)) throw refuse('its "ignoreList" is not an array of indexes')
  } else if (!Array.isArray(json.sections)) {
    throw refuse('its "sections" is not an array')
  }
  const debugId = mapDebugId(json, refuse)
  let map: TraceMap
  try {
    map = new AnyMap(json as unknown as SectionedSourceMapInput)
    checkSegments(map)
  } catch (error) {
    throw refuse((error as Error).message)
  }
  return { map, debugId }
}

const isArrayOf = (value: unknown, each: (item: unknown) => boolean): boolean => Array.isArray(value) && value.every(each)

/** Every decoded segment must point inside the map: a source, line and column, and a name that exist. */
function checkSegments(map: TraceMap): void {
  const sources = map.sources.length
  const names = map.names.length
  const lines = decodedMappings(map)
  for (let line = 0; line < lines.length; line++) {
    for (const segment of lines[line] ?? []) {
      // Fields are read loosely: an index map's sections may hold decoded segments of any shape.
      const [column, source, sourceLine, sourceColumn, nameIndex] = segment as readonly (number | undefined)[]
      const where = `its "mappings" at generated line ${line + 1}`
      if (!(column !== undefined && column >= 0)) throw new Error(`${where} hold a segment without a valid column`)
      if (source === undefined) continue
      if (!(source >= 0 && source < sources)) throw new Error(`${where} name source ${source}, but "sources" has ${sources}`)
      if (!(sourceLine !== undefined && sourceLine >= 0 && sourceColumn !== undefined && sourceColumn >= 0)) {
        throw new Error(`${where} hold a segment without a valid original line and column`)
      }
      if (nameIndex !== undefined && (nameIndex < 0 || nameIndex >= names)) {
        throw new Error(`${where} name ${nameIndex}, but "names" has ${names}`)
      }
    }
  }
}

/** The map's own debug ID: the TC39 proposal's `debugId`, or `debug_id` as Sentry's tools wrote it. */
function mapDebugId(json: Record<string, unknown>, refuse: (problem: string) => Error): string | null {
  const raw = json.debugId ?? json.debug_id
  if (raw === undefined || raw === null) return null
  const id = typeof raw === 'string' ? canonicalDebugId(raw) : null
  if (id === null) throw refuse(`its debug ID ${JSON.stringify(raw)} is not one (a UUID such as 85314830-023f-4cf1-a267-535f4e37bb17)`)
  return id
}

/**
 * A debug ID as stored and compared: lowercase, dashes dropped, and a UUID's 32 digits put back in
 * 8-4-4-4-12 groups, so IDs written with or without dashes, in either case, compare equal. Null when
 * the text is not a debug ID.
 *
 * @example
 * canonicalDebugId('85314830023F4CF1A267535F4E37BB17') // "85314830-023f-4cf1-a267-535f4e37bb17"
 */
export function canonicalDebugId(raw: string): string | null {
  if (!new RegExp(DEBUG_ID_PATTERN).test(raw)) return null
  const digits = raw.replace(/-/g, '').toLowerCase()
  if (digits.length < 12) return null
  const uuid = /^(.{8})(.{4})(.{4})(.{4})(.{12})$/.exec(digits)
  return uuid ? uuid.slice(1).join('-') : digits
}

/**
 * The debug ID a bundle declares: a `//# debugId=<id>` line among its last 5 lines, as the TC39
 * proposal's readers look for it. Null when it has none.
 */
export function bundleDebugId(source: string): string | null {
  let end = source.length
  while (end > 0 && (source[end - 1] === '\n' || source[end - 1] === '\r')) end--
  for (let i = 0; i < 5 && end > 0; i++) {
    const start = source.lastIndexOf('\n', end - 1) + 1
    const line = source.slice(start, end).trim()
    const match = /^\/\/# debugId=([a-fA-F0-9-]{12,})$/.exec(line)
    if (match?.[1] !== undefined) return canonicalDebugId(match[1])
    end = start - 1
  }
  return null
}
