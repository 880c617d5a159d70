import Type, { type Static } from 'typebox'
import { MAX_WEBHOOK_URL_LENGTH } from '../../common/limits.ts'
import { Nullable } from '../util/schema.ts'

/*
 * The dashboard's webhook routes (/app/api/projects/:projectId/webhooks…): their bodies, answers and the
 * dashboard's types. Hidden from the public OpenAPI document like every dashboard route.
 */

export const WebhookParams = Type.Object({
  projectId: Type.String({ maxLength: 100 }),
  webhookId: Type.String({ maxLength: 100 }),
})

export const NewWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'http:// or https:// URL the alerts are posted to.' }),
}, { additionalProperties: false })
export type NewWebhookBody = Static<typeof NewWebhookBody>

export const WebhookView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
}, { additionalProperties: false })
export type WebhookView = Static<typeof WebhookView>

export const AddedWebhook = Type.Object({
  ...WebhookView.properties,
  secret: Type.String({
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: 'The signing secret of the Standard Webhooks signature (webhook-signature) on every delivery: shown only here, once.',
  }),
}, { additionalProperties: false })
export type AddedWebhook = Static<typeof AddedWebhook>

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookView) }, { additionalProperties: false })
export type WebhookList = Static<typeof WebhookList>

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'Sent as the webhook-id header, the same on every attempt.' }),
  webhookId: Type.String(),
  kind: Type.Union([Type.Literal('new'), Type.Literal('regression')]),
  issue: Type.Object({ id: Type.String(), title: Type.String({ description: 'Visitor text: show it as text.' }) }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('dropped')]),
  attempts: Type.Integer(),
  lastStatus: Nullable(Type.Integer({ description: 'HTTP status of the last answer; null when there was none.' })),
  lastError: Nullable(Type.String({ description: 'The start of the last failed answer, the error, or why it was dropped.' })),
  createdAt: Type.String({ format: 'date-time' }),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'Pending: when it is tried (next).' })),
  deliveredAt: Nullable(Type.String({ format: 'date-time' })),
}, { additionalProperties: false })
export type DeliveryView = Static<typeof DeliveryView>

export const DeliveryLog = Type.Object({ deliveries: Type.Array(DeliveryView) }, { additionalProperties: false })
export type DeliveryLog = Static<typeof DeliveryLog>
