/** Reads of the session list the search tests share. */
import assert from 'node:assert/strict'
import { json, type TestApp } from '../../helpers/app.ts'

/** The list a query answers, which must be a 200. */
export async function listed(t: TestApp, query: string): Promise<{ total: number; sessions: Record<string, unknown>[] }> {
  const res = await t.get(`/api/v1/sessions?${query}`)
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
  return json(res)
}

/** The ids a query lists, sorted, and checks that total counts exactly them. */
export async function foundIds(t: TestApp, query: string): Promise<string[]> {
  const body = await listed(t, query)
  assert.equal(body.total, body.sessions.length, `${query}: total counts what is listed`)
  return body.sessions.map((s) => String(s.id)).sort()
}

export const sorted = (...xs: string[]): string[] => [...xs].sort()
