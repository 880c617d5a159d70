import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { TestApp } from './app.ts'

/** An envelope as SDK 11 writes it: the header, then each item's header and payload, no trailing newline. */
export function envelope(header: Record<string, unknown>, items: [Record<string, unknown>, string | Buffer | Record<string, unknown>][]): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header))]
  for (const [itemHeader, payload] of items) {
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload))
    parts.push(Buffer.from(`\n${JSON.stringify(itemHeader)}\n`), bytes)
  }
  return Buffer.concat(parts)
}

/** POSTs an envelope to the project's DSN endpoint, authenticated by `sentry_key` as the browser SDK does. */
export function postEnvelope(
  t: TestApp, body: Buffer | string,
  opts: { project?: { sentryProjectId: number; dsnKey: string }; query?: string; headers?: InjectOptions['headers']; path?: string; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const project = opts.project ?? t.project
  const query = opts.query ?? `sentry_key=${project.dsnKey}&sentry_version=7&sentry_client=sentry.javascript.browser%2F11.12.0`
  return t.app.inject({
    method: 'POST', url: `${opts.path ?? `/api/${project.sentryProjectId}/envelope/`}${query === '' ? '' : `?${query}`}`,
    payload: body, headers: { 'content-type': 'text/plain;charset=UTF-8', ...opts.headers },
    ...(opts.remoteAddress !== undefined && { remoteAddress: opts.remoteAddress }),
  })
}

/** A Sentry error event with a stack and breadcrumbs, as @sentry/browser 11 sends it. */
export function errorEvent(eventId: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Date.now() / 1000
  return {
    event_id: eventId, timestamp: now, platform: 'javascript', level: 'error', environment: 'production',
    request: { url: 'https://shop.example/cart', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' } },
    exception: { values: [{
      type: 'TypeError', value: 'Cannot read properties of undefined (reading \'total\')',
      mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
      stacktrace: { frames: [
        { filename: 'https://shop.example/app.js', function: 'HTMLButtonElement.onclick', lineno: 10, colno: 3, in_app: true },
        { filename: 'https://shop.example/app.js', function: 'checkout', lineno: 42, colno: 17, in_app: true },
      ] },
    }] },
    breadcrumbs: { values: [{ timestamp: now - 1, category: 'ui.click', message: 'body > button#pay' }] },
    sdk: { name: 'sentry.javascript.browser', version: '11.12.0', settings: { infer_ip: 'auto' } },
    ...fields,
  }
}

/** A request body recorded from a server SDK by test/fixtures/sentry/record, as listed in its <sdk>/requests.json. */
export interface RecordedRequest { file: string; endpoint: 'envelope' | 'store'; query: string; headers: Record<string, string> }
export type ServerSdk = 'python-2' | 'python-1' | 'node' | 'ruby'
export const SERVER_SDKS: readonly ServerSdk[] = ['python-2', 'python-1', 'node', 'ruby']

const RECORDED = path.resolve(import.meta.dirname, '..', 'fixtures', 'sentry')

/** The requests one server SDK made, in the order it made them. */
export function recordedRequests(sdk: ServerSdk): RecordedRequest[] {
  return JSON.parse(fs.readFileSync(path.join(RECORDED, sdk, 'requests.json'), 'utf8')) as RecordedRequest[]
}

const DSN = /"dsn":"(https?:\/\/)[0-9a-f]+@([^/"]+)\/\d+"/

/**
 * Replays a recorded request as the SDK made it (endpoint, query, headers, a Content-Type only if it sent one), with
 * the project's DSN key and number in place of the recording's: in the query or auth header, and in the `dsn`.
 */
export function replayRecorded(
  t: TestApp, sdk: ServerSdk, request: RecordedRequest,
  opts: { project?: TestApp['project']; edit?: (text: string) => string; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const project = opts.project ?? t.project
  const gzipped = request.headers['content-encoding'] === 'gzip'
  let body = fs.readFileSync(path.join(RECORDED, sdk, request.file))
  let raw = gzipped ? gunzipSync(body) : body
  if (opts.edit) {
    raw = Buffer.from(opts.edit(raw.toString('utf8')))
    body = gzipped ? gzipSync(raw) : raw
  }
  const end = raw.indexOf(10) === -1 ? raw.length : raw.indexOf(10)
  const head = raw.subarray(0, end).toString('utf8')
  if (DSN.test(head)) {
    const rekeyed = Buffer.concat([Buffer.from(head.replace(DSN, `"dsn":"$1${project.dsnKey}@$2/${String(project.sentryProjectId)}"`)), raw.subarray(end)])
    body = gzipped ? gzipSync(rekeyed) : rekeyed
  }
  const rekey = (value: string) => value.replace(/sentry_key=[0-9a-f]+/, `sentry_key=${project.dsnKey}`)
  const headers: InjectOptions['headers'] = { 'content-type': undefined, ...request.headers }
  if (request.headers['x-sentry-auth'] !== undefined) headers['x-sentry-auth'] = rekey(request.headers['x-sentry-auth'])
  return postEnvelope(t, body, {
    project, query: rekey(request.query), path: `/api/${String(project.sentryProjectId)}/${request.endpoint}/`, headers,
    ...(opts.remoteAddress !== undefined && { remoteAddress: opts.remoteAddress }),
  })
}
