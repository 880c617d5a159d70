import type { Db } from '../db/database.ts'
import { searchByPlan, type SessionFilters, type SessionPage, type SessionRange } from './list.ts'
import type { SessionListRow } from '../visits/tables.ts'
import { searchTextsAlone, textsAlone } from './text-alone.ts'

/**
 * A filtered page with its exact total: a search by text alone in one statement where the engine gains by it
 * (text-alone.ts), any other as list.ts plans it from its count (searchByPlan).
 */
export function searchSessions(
  db: Db, projectId: string, range: SessionRange, page: SessionPage, filters: SessionFilters,
): Promise<{ total: number; rows: SessionListRow[] }> {
  if (textsAlone(db, range, filters)) return searchTextsAlone(db, projectId, range, page, filters)
  return searchByPlan(db, projectId, range, page, filters)
}

