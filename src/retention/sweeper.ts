import type { FastifyInstance } from 'fastify'
import { startPeriodic } from '../util/periodic.ts'
import { sweep } from './service.ts'
import { sweepAudit } from '../audit/service.ts'

/** Runs the retention sweep every `seconds` inside the service; 0 turns it off. Returns a stop function. */
export function startSweeper(app: FastifyInstance, seconds: number): () => Promise<void> {
  if (seconds <= 0) return () => Promise.resolve()
  const sweeper = startPeriodic(seconds * 1000, async () => {
    const report = await sweep(app.db, Date.now())
    if (report.deleted > 0) app.log.info(report, 'retention sweep deleted expired sessions')
    // The audit trail has its own retention, never a project's: it must outlive the visits it names.
    const lines = await sweepAudit(app.db, app.config.auditRetentionDays)
    if (lines > 0) app.log.info({ lines }, `retention sweep deleted audit lines older than ${app.config.auditRetentionDays} days`)
  }, (error) => {
    // An outage or a full disk is logged once per episode by the database status; the next tick tries again.
    if (app.databaseStatus.failed(error) === null) app.log.error({ err: error }, 'retention sweep failed')
  })
  app.addHook('onReady', () => { sweeper.tick() })
  return sweeper.stop
}
