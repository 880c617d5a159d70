/**
 * The ceiling: the same Fastify, with the service's server options, answering GET /ceiling/:bytes
 * with a pre-serialized JSON body of that many bytes. Whatever the service does beyond this
 * (auth, queries, serialization) is what the ratios measure. Run as its own process, like the service.
 */
import Fastify from 'fastify'

const port = Number(process.argv[2] ?? 0)
const app = Fastify({ logger: false, return503OnClosing: true })
const bodies = new Map<number, string>()

app.get<{ Params: { bytes: string } }>('/ceiling/:bytes', (request, reply) => {
  const size = Number(request.params.bytes)
  let body = bodies.get(size)
  if (body === undefined) {
    // A JSON string padded to the exact size: {"pad":"xxxx…"}
    body = `{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`
    bodies.set(size, body)
  }
  return reply.type('application/json; charset=utf-8').send(body)
})
app.get('/healthz', () => ({ status: 'ok' }))

const address = await app.listen({ host: '127.0.0.1', port })
process.stdout.write(`${address}\n`)
process.once('SIGTERM', () => { void app.close().then(() => process.exit(0)) })
