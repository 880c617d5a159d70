import { createHmac, randomBytes } from 'node:crypto'

/*
 * Standard Webhooks signatures (standardwebhooks.com): each webhook has its own secret, `whsec_` and the base64 of
 * 32 random bytes; a delivery carries `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by
 * the secret's decoded bytes, so a receiver can tell the service's deliveries from anyone else's POST and refuse an
 * old one replayed. docs/api.md says how to verify.
 */

const SECRET_PREFIX = 'whsec_'

/** Random bytes of a new secret: the spec allows 24 to 64; 32 is the HMAC-SHA256 block's half and its output's size. */
const SECRET_BYTES = 32

/** A new webhook's signing secret, `whsec_` and the base64 of 32 random bytes. */
export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')

/**
 * The `webhook-signature` value of a delivery: `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 * keyed by the base64-decoded part of the secret.
 */
function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The Standard Webhooks headers of one attempt at `now`: the id is the delivery's, the same on every retry. */
export function signedHeaders(secret: string, id: string, body: string, now: number): Record<string, string> {
  const timestamp = Math.floor(now / 1000)
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature(secret, id, timestamp, body) }
}
