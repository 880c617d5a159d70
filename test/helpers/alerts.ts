import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Kysely } from 'kysely'
import type { Database, Db } from '../../src/database.ts'
import { enqueueIssueAlert, type IssueAlert } from '../../src/alerts/store.ts'
import { eventually } from './wait.ts'

let issues = 0

/** An alert for a new issue of the project (a fresh issue id each call unless given). */
export function issueAlert(projectId: string, over: Partial<Omit<IssueAlert, 'issue'>> & { issue?: Partial<IssueAlert['issue']> } = {}): IssueAlert {
  const at = over.at ?? Date.now()
  return {
    projectId, kind: over.kind ?? 'new', at,
    issue: {
      id: `i_test_${++issues}`, type: 'ERROR', title: 'TypeError: cart is undefined', culprit: 'checkout.js',
      firstSeenAt: at, lastSeenAt: at, events: 1, sessions: 1, ...over.issue,
    },
  }
}

/** Queues the alert as the ingest path does: inside a transaction that commits. */
export const enqueueCommitted = (db: Kysely<Database>, alert: IssueAlert): Promise<void> =>
  db.transaction().execute((trx) => enqueueIssueAlert(trx, alert))

/** The deliveries of a project as stored, oldest first. */
export const storedDeliveries = (db: Db, projectId: string) =>
  db.selectFrom('webhook_deliveries').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute()

export type StoredDelivery = Awaited<ReturnType<typeof storedDeliveries>>[number]

/** Waits until the project has deliveries and every one satisfies `done` (by default: none is left to send); returns them. */
export const settledDeliveries = (db: Db, projectId: string, what: string, done = (row: StoredDelivery) => row.status !== 'pending') =>
  eventually(async () => {
    const rows = await storedDeliveries(db, projectId)
    return rows.length > 0 && rows.every(done) ? rows : null
  }, what, 15_000, 20)

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/**
 * A webhook receiver on a loopback port: it records every request and answers each with the next of `statuses`
 * (the last one repeats), with the body its `answer` gives (a test may replace it); 0 never answers (a receiver that hangs).
 */
export async function startReceiver(statuses: number[] = [200]) {
  const self = { answer: (status: number): string => (status >= 300 ? `receiver says ${status}` : 'ok') }
  const received: Received[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => {
      received.push({ headers: request.headers, body, at: Date.now() })
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200
      if (status === 0) return
      response.writeHead(status, { 'content-type': 'text/plain' }).end(self.answer(status))
    })
  })
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  const { port } = server.address() as AddressInfo
  return Object.assign(self, {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve() }) }),
  })
}
