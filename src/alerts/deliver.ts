import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'
import { WEBHOOK_ERROR_MAX_CHARS, WEBHOOK_RESPONSE_MAX_BYTES } from './limits.ts'
import { cleanText } from '../events/text.ts'
import { addressRefusal, literalAddress } from './address.ts'
import type { SendResult } from './service.ts'

export interface SenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean
  /** How long a receiver has to answer in full. */
  timeoutMs: number
  /** Resolves host names: dns.lookup, unless a test gives its own (one that answers 127.0.0.1, say). */
  lookup?: LookupFunction
}

/** Posts webhook bodies; closing it ends its connections. */
export interface Sender {
  /** Never rejects: every failure comes back as a SendResult, an aborted send as one too (the caller knows it aborted). */
  send(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<SendResult>
  close(): void
}

/** The address policy refused where a host name led: no retry changes that. */
class AddressRefused extends Error {}

/**
 * A sender whose connections reach only addresses the policy allows (address.ts), checked on the address each
 * connection actually uses, so a host name that resolves to a public address when checked and to an internal
 * one when connecting (DNS rebinding) gets nowhere.
 *
 * Global fetch (undici) ignores http.Agent, so this uses node:http(s) with request-filtering-agent's agents:
 * they hook Agent#createConnection, validate every address dns.lookup returns there (the `all: true` list that
 * Node's autoSelectFamily asks for included) and refuse literal-IP hosts, which skip lookup, before connecting.
 * The policy's own check runs inside that hook (as the lookup the agent calls), for the reason a delivery
 * records and for the metadata addresses that stay refused under WEBHOOK_ALLOW_PRIVATE.
 */
export function createSender(options: SenderOptions): Sender {
  // keepAlive off: deliveries are rare and go to many hosts; an idle socket would only hold the service open.
  const agentOptions = { allowPrivateIPAddress: options.allowPrivate, keepAlive: false }
  const httpAgent = new RequestFilteringHttpAgent(agentOptions)
  const httpsAgent = new RequestFilteringHttpsAgent(agentOptions)
  const lookup = guardedLookup(options.lookup ?? dns.lookup, options.allowPrivate)

  const send: Sender['send'] = (url, body, headers, signal) => {
    const target = new URL(url)
    const literal = literalAddress(target.hostname)
    const refused = literal === null ? null : addressRefusal(literal, options.allowPrivate)
    if (refused !== null) return Promise.resolve({ ok: false, status: null, error: `refused: ${refused}`, retry: false })
    return new Promise<SendResult>((resolve) => {
      const secure = target.protocol === 'https:'
      const request = (secure ? https : http).request(target, {
        method: 'POST', agent: secure ? httpsAgent : httpAgent, lookup, signal,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      })
      const timer = setTimeout(() => { request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)) }, options.timeoutMs)
      const settle = (result: SendResult) => {
        clearTimeout(timer)
        resolve(result)
      }
      request.on('response', (response) => {
        const chunks: Buffer[] = []
        let size = 0
        const done = () => { settle(answer(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), response.headers.location)) }
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
          // A receiver that answers at length is not read to the end: the log keeps only the start.
          if (size >= WEBHOOK_RESPONSE_MAX_BYTES) {
            done()
            response.destroy()
          }
        })
        response.on('end', done)
        response.on('error', done)
      })
      request.on('error', (error) => {
        settle({ ok: false, status: null, error: excerpt(error.message), retry: !(error instanceof AddressRefused) })
      })
      request.end(body)
    })
  }

  return {
    send,
    close() {
      httpAgent.destroy()
      httpsAgent.destroy()
    },
  }
}

/** The lookup the agent calls: resolves, then refuses the connection if any address it would use is refused. */
function guardedLookup(resolve: LookupFunction, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family)
        return
      }
      for (const each of typeof address === 'string' ? [address] : address.map((a) => a.address)) {
        const why = addressRefusal(each, allowPrivate)
        if (why !== null) {
          callback(new AddressRefused(`refused: ${hostname} → ${why}`), address, family)
          return
        }
      }
      callback(null, address, family)
    })
  }
}

/** 2xx is delivered; a redirect is not followed (the receiver names another URL: use that one); 408, 429 and 5xx are worth another try. */
function answer(status: number, body: string, location: string | undefined): SendResult {
  if (status >= 200 && status < 300) return { ok: true, status }
  if (status >= 300 && status < 400) {
    return { ok: false, status, error: excerpt(`redirects are not followed: add the webhook with the URL it redirects to (${location ?? 'no Location'})`), retry: false }
  }
  return { ok: false, status, error: excerpt(body), retry: status === 408 || status === 429 || status >= 500 }
}

const excerpt = (text: string): string => cleanText(text).slice(0, WEBHOOK_ERROR_MAX_CHARS)
