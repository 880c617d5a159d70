/**
 * Pages: the page counters (page_days, page_totals, page_vitals, page_vital_totals) and the pages report. The visit's
 * write counts a group's newly stored events as one step (`PageDeltas`); retention and project deletion take them
 * away (store.ts). The report, `listPages`, is in service.ts, which the read API and the dashboard import.
 */
export { PageDeltas, pageOf } from './count.ts'
export { expirePageDays, forgetProject } from './store.ts'
export type * from './tables.ts'
