/**
 * Issues: the grouping rules (fingerprint.ts, stack.ts, grouping.ts) and the store of the issue tables (issues,
 * issue_fingerprints, issue_sessions, issue_days, issue_totals, issue_release_totals). The visit's write path calls
 * the store as one step (`issueTargets`, `IssueDeltas`); the API (routes.ts, service.ts) reads it. A new grouping
 * rule goes in fingerprint.ts.
 */
export * from './grouping.ts'
export * from './read.ts'
export * from './store.ts'
export { byKey } from './totals.ts'
export type * from './tables.ts'
export { regroupAfterUpload } from './regroup.ts'
export { isInApp, urlTemplate } from './fingerprint.ts'
export { addComment, assignIssue, editComment, forgetPerson, listComments } from './team.ts'
