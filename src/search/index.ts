/**
 * The search index and the session list: what each visit has (session_terms, term_bits, term_days, session_days,
 * session_texts), written by the visit's write path as one step (`indexBatch`), and the reads that plan and run a
 * page of the list with its exact total (`listSessions`, `searchSessions`, `countSessions`). A new search filter
 * is a term here (indexing.ts `term`) and a parameter in src/sessions/schema.ts.
 */
export * from './count.ts'
export * from './days.ts'
export * from './indexing.ts'
export * from './list.ts'
export * from './texts.ts'
export type * from './tables.ts'
