/**
 * What a database error means for the caller, for both engines. The rest of the service asks
 * this module, never an engine's codes:
 * - `retryable`: the whole transaction was rolled back and can simply run again;
 * - `unavailable`: an outage (server gone, restarting, out of connections), not a bug: answer 503;
 * - `full`: the database cannot grow (disk full): answer 503 until an operator frees space.
 */
export type DatabaseFault = 'retryable' | 'unavailable' | 'full'

/** PostgreSQL deadlock and serialization failures. */
const RETRYABLE = new Set(['40P01', '40001'])

/*
 * Connection-class failures: PostgreSQL SQLSTATE class 08 (connection), 57P01-03 (server shutting
 * down, crashed or starting), 3D000 (database gone), 57014 and 55P03 (a statement or lock wait past
 * DATABASE_STATEMENT_TIMEOUT_MS: an overloaded or blocked server), socket errors, and SQLite's
 * busy/locked after its busy timeout.
 */
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '57014', '55P03', '3D000', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE',
  'SQLITE_BUSY', 'SQLITE_LOCKED'])

/** pg's own messages for a connection it lost or could not open; these errors carry no code. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i

/**
 * Disk full: SQLite's SQLITE_FULL, and PostgreSQL's 53100 (disk_full). The rest of PostgreSQL's
 * class 53 (insufficient resources: out of memory, too many connections) passes with time, so it is
 * an outage rather than a full disk.
 */
const FULL = new Set(['SQLITE_FULL', '53100'])

/** Tries of a transaction that deadlocks or fails to serialize. */
const ATTEMPTS = 3

/**
 * Runs `work`, one whole transaction, again when it fails on a deadlock or a serialization failure, which rolled it
 * back (PostgreSQL; SQLite writes one transaction at a time), up to ATTEMPTS times in all. Any other failure, or the
 * last, is thrown as it is.
 */
export async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      if (classifyDatabaseError(error) !== 'retryable' || attempt >= ATTEMPTS) throw error
    }
  }
}

export function classifyDatabaseError(error: unknown): DatabaseFault | null {
  if (!(error instanceof Error)) return null
  const raw = (error as { code?: unknown }).code
  const code = typeof raw === 'string' ? raw : ''
  if (RETRYABLE.has(code)) return 'retryable'
  if (FULL.has(code)) return 'full'
  if (UNAVAILABLE.has(code) || code.startsWith('08') || code.startsWith('53')) return 'unavailable'
  if (UNAVAILABLE_MESSAGE.test(error.message)) return 'unavailable'
  return null
}

/** The engine's own code for the log ("SQLITE_FULL", "53100"), when the error carries one. */
export function databaseErrorCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}

/** A unique index refused a row: PostgreSQL 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE (and _PRIMARYKEY). */
export function isUniqueViolation(error: unknown): boolean {
  const code = databaseErrorCode(error)
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}
