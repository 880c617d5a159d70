import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/** A server on a free loopback port that accepts connections and never says a word: a peer that hangs. */
export async function startSilentServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => {
        resolve()
      })
    }),
  }
}
