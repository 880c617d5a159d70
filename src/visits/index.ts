/**
 * A visit: the sessions, events and recording_chunks tables and the only code that writes them. `writeBatches`
 * (through the group-commit `Writer`) is the one operation by which events and recording chunks enter the database,
 * with the search index and the issues as named steps of it; `deleteExpired` and `eraseVisits` take visits out;
 * read.ts reads one visit. facts.ts maps the visitor facts of the contract to their columns. A new session field
 * is a fact in src/contract/visitor.ts, a column in tables.ts with a migration, and the code that supplies it.
 */
export * from './agent.ts'
export * from './delete.ts'
export * from './evict.ts'
export * from './facts.ts'
export * from './read.ts'
export * from './write.ts'
export * from './writer.ts'
export * from './tables.ts'
export * from './trash.ts'
export * from './storage.ts'
