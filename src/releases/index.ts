/**
 * Release health: the release tables (release_units, releases, release_users, release_days) and the only code that
 * writes them (store.ts through count.ts). The visit's write counts our SDK's visits as a step (`VisitOutcomes`),
 * deleting visits takes them out (`forgetVisitUnits`), Sentry ingest counts session items (`countSentryUnits`),
 * retention and erasure remove what they must (`expireUnits`, `eraseUserUnits`); the API (routes.ts, service.ts) reads.
 */
export * from './status.ts'
export type { Unit } from './count.ts'
export * from './store.ts'
export type * from './tables.ts'
