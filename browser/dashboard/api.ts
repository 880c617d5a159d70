import type { Static } from 'typebox'
import type { Role } from '../../common/roles.ts'
import type { Me as MeSchema, SignInList } from '../../src/accounts/schema.ts'
import type { IpStorage } from '../../src/privacy/ip.ts'
import type { WithDsn } from '../../src/projects/format.ts'
import type { ProjectSummary as Summary, ProjectWithKeys as WithKeys, ProjectWithUploadKey } from '../../src/projects/service.ts'

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

// The wire types come from the service's own view types, so the two cannot drift apart.
export type { SessionDetailView as SessionItem, SessionView as SessionBasics, EventView as SessionEvent } from '../../src/contract/index.ts'
export type { RecordingView as RecordingInfo } from '../../src/recording/service.ts'
/** Projects as the dashboard API gives them: with their Sentry DSN and the signed-in person's role on each. */
export type ProjectSummary = WithDsn<Summary> & { role: Role }
export type ProjectWithKeys = WithDsn<WithKeys>
export type { ProjectWithUploadKey }
export type { IssueView as IssueItem, IssueListView as IssueList, IssueDetailView as IssueDetail, CommentView as IssueComment } from '../../src/issues/schema.ts'
export type { ReleaseView as ReleaseItem, ReleaseListView as ReleaseList, ReleaseDetailView as ReleaseDetail } from '../../src/releases/schema.ts'
export type { AddedWebhook, DeliveryView as DeliveryItem, WebhookView as WebhookItem } from '../../src/alerts/schema.ts'
export type { EraseResult } from '../../src/privacy/schema.ts'
export type { DashboardSession as SessionRow, DashboardSessionList as SessionRowList, Headline } from '../../src/dashboard/schema.ts'
export type { IpStorage, Role }
export type { PersonView as Person } from '../../src/accounts/schema.ts'
/** The signed-in person (GET /me) and their browsers' sign-ins (GET /me/sign-ins). */
export type Me = Static<typeof MeSchema>
export type SignIn = Static<typeof SignInList>['signIns'][number]
export type { AuditLine, AuditList } from '../../src/audit/schema.ts'

/**
 * Server settings the dashboard shows: the IP storage and ingest rate limit (INGEST_RATE_LIMIT) a project may follow,
 * and whether /demo is served (DEMO).
 */
export interface ServerDefaults { ipStorage: IpStorage; ingestRateLimit: number; demo: boolean }
export type { ProjectUsage } from '../../src/dashboard/schema.ts'
export type { PageListView as PageList, PageReportView as PageItem, VitalSummaryView as PageMetric } from '../../src/pages/schema.ts'
