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
  t: TestApp, body: Buffer | string, opts: { project?: { sentryProjectId: number; dsnKey: string }; query?: string; headers?: InjectOptions['headers']; path?: string } = {},
): Promise<LightMyRequestResponse> {
  const project = opts.project ?? t.project
  const query = opts.query ?? `sentry_key=${project.dsnKey}&sentry_version=7&sentry_client=sentry.javascript.browser%2F11.12.0`
  return t.app.inject({
    method: 'POST', url: `${opts.path ?? `/api/${project.sentryProjectId}/envelope/`}${query === '' ? '' : `?${query}`}`,
    payload: body, headers: { 'content-type': 'text/plain;charset=UTF-8', ...opts.headers },
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
