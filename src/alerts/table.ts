/*
 * The tables of webhook alerts, owned by src/alerts/: only store.ts inserts, updates or deletes their rows.
 * Times are epoch milliseconds.
 */
/** Why an alert is sent: an issue seen for the first time, or one that came back after it was resolved. */
export type AlertKind = 'new' | 'regression'

/** Row shape of `webhooks`: where a project's alerts are posted. */
export interface WebhookTable {
  project_id: string
  id: string
  /** http(s) URL, checked when added; the address it resolves to is checked on every connection. */
  url: string
  /** Standard Webhooks signing secret (`whsec_…`, sign.ts): shown once when added, kept to sign every delivery. */
  secret: string
  created_at: number
}

/**
 * - `pending`: waiting for its next attempt (or being sent, while a process holds its lease);
 * - `delivered`: a 2xx answer;
 * - `failed`: no 2xx within WEBHOOK_RETRY_FOR_MS, or an answer that no retry can change (a 4xx, a redirect, a refused address);
 * - `dropped`: over the project's rate limit of alerts, never sent.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped'

/** Row shape of `webhook_deliveries`: one alert to one webhook, with its attempts. */
export interface WebhookDeliveryTable {
  project_id: string
  /** Sent as the `webhook-id` header: the same on every attempt, so a receiver can drop repeats. */
  id: string
  webhook_id: string
  issue_id: string
  kind: AlertKind
  /** When the alert happened (IssueAlert.at); with webhook, issue and kind it identifies the alert, uniquely. */
  alert_at: number
  /** JSON of the alert's facts as they were when it was queued, so every attempt sends the same body. */
  payload: string
  status: DeliveryStatus
  attempts: number
  /**
   * Pending: when it may be sent next; while a process sends it, the end of that process's lease (the claim
   * compares and sets this value). Null once finished.
   */
  next_attempt_at: number | null
  /** HTTP status of the last answer; null when there was none (refused, timed out, unreachable). */
  last_status: number | null
  /** The first WEBHOOK_ERROR_MAX_CHARS characters of the last failed answer's body or of the error; or why it was dropped. */
  last_error: string | null
  created_at: number
  delivered_at: number | null
}
