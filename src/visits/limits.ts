/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

/** Batches waiting for the writer at most, all projects together: beyond it ingest answers 503, so memory stays bounded. */
export const WRITER_MAX_QUEUED = 5000
/**
 * Batches of one project waiting for the writer at most: beyond it that project's ingest answers 503 while the others'
 * still queue, so a flood fills its own queue and not everyone's.
 */
export const WRITER_MAX_QUEUED_PER_PROJECT = 1000
/**
 * Events of one project in a group commit at most while another project waits too: such a group commits in a tenth
 * of a full one's time (10,000 events), so the other's batches are not held behind a flood.
 */
export const WRITER_SHARED_GROUP_EVENTS = 1000
/** Sessions deleted per transaction, by a retention sweep or an erasure: short transactions keep ingest and reads flowing meanwhile. */
export const SWEEP_BATCH = 500
