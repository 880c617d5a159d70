import { request, type OutgoingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

/**
 * Starts the app on a loopback port and returns a function sending real HTTP requests to it:
 * inject cannot send what these tests need (methods Node's parser refuses, repeated headers).
 */
export async function realHttp(app: FastifyInstance) {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  // An array value goes out as that many header lines (Node's types allow it for custom headers only).
  return (method: string, path: string, headers: Record<string, string | string[]> = {}, body?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; json: () => Record<string, unknown> }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers: headers as OutgoingHttpHeaders }, (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) as Record<string, unknown> })
        })
      })
      req.on('error', reject)
      req.end(body)
    })
}
