/** A search's text filters (`url=`, `q=`), as the count and the page read them (list.ts searchSessions). */
import { SEARCH_TEXT_MATCH_LIMIT, SEARCH_TEXT_PROBE_MAX } from './limits.ts'
import { invalidParameter } from '../errors.ts'
import type { SessionFilters } from './filters.ts'

/** A text filter: `url` searches a visit's pages, each `q` word all its text (session_texts' `page` and `body`). */
export interface TextFilter {
  name: 'url' | 'q'
  column: 'page' | 'body'
  needle: string
}

/** The answer to a text filter whose matches are too many to count exactly at once (SEARCH_TEXT_MATCH_LIMIT rows of text). */
export const tooBroad = (t: TextFilter) => invalidParameter(t.name, `${t.name} "${t.needle}" occurs in more than ${SEARCH_TEXT_MATCH_LIMIT} texts of `
  + `this project, too many to count exactly at once: add words, or a filter or from/to range that leaves at most ${SEARCH_TEXT_PROBE_MAX} visits to search`)

/** A search's text filters, `url` first, in the order their matches are read (and the first too broad refused). */
export const textFilters = (f: SessionFilters): TextFilter[] => [
  ...(f.url === undefined ? [] : [{ name: 'url' as const, column: 'page' as const, needle: f.url }]),
  ...(f.q ?? []).map((needle) => ({ name: 'q' as const, column: 'body' as const, needle })),
]
