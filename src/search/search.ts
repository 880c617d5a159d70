import type { RawBuilder } from 'kysely'
import type { Db } from '../database.ts'
import { searchByPlan, type SessionFilters, type SessionJsonRow, type SessionPage, type SessionRange } from './list.ts'
import type { SessionListRow } from '../visits/tables.ts'
import { searchTextsAlone, textsAlone } from './text-alone.ts'

/**
 * A filtered page with its exact total: a search by text alone in one statement where the engine gains by it
 * (text-alone.ts), any other as list.ts plans it from its count (searchByPlan). Given `json`, each row is the session's
 * JSON, as its row keeps it (src/sessions/views.ts `sessionJson`).
 */
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string>,
): Promise<{ total: number; rows: SessionJsonRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json: RawBuilder<string> | undefined,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }>
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters, json?: RawBuilder<string>,
): Promise<{ total: number; rows: SessionListRow[] | SessionJsonRow[] }> {
  if (textsAlone(db, range, filters)) return searchTextsAlone(db, projectId, range, page, filters, json)
  return searchByPlan(db, projectId, range, page, filters, json)
}

