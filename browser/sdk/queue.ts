import type { IngestEvent } from '../../src/contract/index.ts'

/**
 * Why events were dropped instead of sent; exposed by Sessionwatch.stats(). `consent`: held beyond CONSENT_QUEUE_MAX
 * while waiting for consent, or dropped when consent was withdrawn.
 */
export type DropReason = 'queue_overflow' | 'rejected' | 'retries_exhausted' | 'consent'

/** An event as the SDK queues and sends it: the ingest body's event (one definition, src/contract/batch.ts), with its id and time set. */
export type SdkEvent = Omit<IngestEvent, 'id' | 'createdAt'> & { id: string; createdAt: number }

/**
 * A bounded FIFO of events waiting to be sent. When full, new events are dropped and counted:
 * a page that throws in a loop must not grow memory without limit.
 */
export function makeQueue(max: number) {
  const items: SdkEvent[] = []
  const dropped: Record<DropReason, number> = { queue_overflow: 0, rejected: 0, retries_exhausted: 0, consent: 0 }
  return {
    push(event: SdkEvent): void {
      if (items.length >= max) dropped.queue_overflow++
      else items.push(event)
    },
    take(n: number): SdkEvent[] {
      return items.splice(0, n)
    },
    get size(): number {
      return items.length
    },
    drop(reason: DropReason, n: number): void {
      dropped[reason] += n
    },
    dropped,
  }
}
