import fs from 'node:fs'
import { gzipSync } from 'node:zlib'

/** rrweb-shaped events: Meta + FullSnapshot, then `incremental` mouse moves, from `start` one second apart. */
export function rrwebEvents(start: number, incremental = 3, text = 'Hello'): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    { type: 4, timestamp: start, data: { href: 'https://shop.example/', width: 1280, height: 800 } },
    {
      type: 2, timestamp: start, data: {
        node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [
          { type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [{ type: 3, id: 4, textContent: text }] },
        ] }] },
        initialOffset: { left: 0, top: 0 },
      },
    },
  ]
  for (let i = 1; i <= incremental; i++) {
    events.push({ type: 3, timestamp: start + i * 1000, data: { source: 1, positions: [{ x: i, y: i, id: 4, timeOffset: 0 }] } })
  }
  return events
}

/** A chunk upload as the SDK sends it: base64 of gzip of the JSON events. */
export const chunkUpload = (id: string, events: unknown, raw?: Buffer) =>
  ({ id, data: (raw ?? gzipSync(JSON.stringify(events))).toString('base64') })

/** How many files are under a folder (a `file:` store's objects), at any depth; 0 when it does not exist. */
export const filesUnder = (root: string): number => (fs.existsSync(root)
  ? fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
  : 0)
