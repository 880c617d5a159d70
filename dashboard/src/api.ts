/** An error answer of the service: its stable code and its message for people. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

/** Called when the service says the browser is not signed in. */
let onSignedOut: () => void = () => undefined
export const setSignedOutHandler = (fn: () => void): void => { onSignedOut = fn }

/** Calls the dashboard API; JSON in and out, errors as ApiError. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/app/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: { 'x-sessionwatch': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status === 204) return undefined as T
  const data = (await res.json().catch(() => null)) as (T & { code?: string; message?: string }) | null
  if (!res.ok) {
    const error = new ApiError(res.status, data?.code ?? 'error', data?.message ?? `Request failed (${res.status})`)
    if (error.code === 'not_signed_in') onSignedOut()
    throw error
  }
  return data as T
}

export interface ProjectSummary {
  id: string
  name: string
  domain: string
  retentionDays: number
  apiKeyPrefix: string
  ingestKey: string
  createdAt: string
}

export interface ProjectWithKeys { id: string; name: string; domain: string; apiKey: string; ingestKey: string }

export interface SessionItem {
  id: string
  sessionKey: string
  startedAt: string
  lastSeenAt: string
  ip: string | null
  country: string | null
  userAgent: string | null
  utm: Record<string, string> | null
  events: { total: number; errors: number; slow: number }
  recording: { available: boolean; chunks: number }
}

export interface SessionEvent {
  id: string
  type: string
  createdAt: string
  url?: string
  method?: string
  message: string | null
  stack: string | null
  statusCode: number | null
  durationMs: number | null
  reqBody: string | null
  resBody: string | null
}

export interface RecordingInfo {
  recording: { available: boolean; chunks: number; bytes: number; droppedChunks: number }
  chunks: { id: string; startedAt: string; endedAt: string; events: number; bytes: number; fullSnapshot: boolean }[]
}
