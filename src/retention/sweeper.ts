import type { FastifyInstance } from 'fastify'
import { sweep } from './service.ts'

/** Runs the retention sweep every `seconds` inside the service; 0 turns it off. Returns a stop function. */
export function startSweeper(app: FastifyInstance, seconds: number): () => Promise<void> {
  if (seconds <= 0) return () => Promise.resolve()
  let running: Promise<unknown> | null = null
  const tick = (): void => {
    if (running) return
    running = sweep(app.db, Date.now())
      .then((report) => {
        if (report.deleted > 0) app.log.info(report, 'retention sweep deleted expired sessions')
      })
      .catch((error: unknown) => {
        // An outage or a full disk is logged once per episode by the database status; the next tick tries again.
        if (app.databaseStatus.failed(error) === null) app.log.error({ err: error }, 'retention sweep failed')
      })
      .finally(() => { running = null })
  }
  const timer = setInterval(tick, seconds * 1000)
  timer.unref()
  app.addHook('onReady', () => { tick() })
  return async () => {
    clearInterval(timer)
    await running
  }
}
