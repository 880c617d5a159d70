import assert from 'node:assert/strict'
import fs from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { startServer } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'

/** The commands of a process's children (Linux /proc), waiting up to 2 s for them to be none. */
async function childrenOnceSettled(parent: number): Promise<string[]> {
  const children = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      return ppid === parent ? [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))] : []
    } catch {
      return [] // ended meanwhile
    }
  })
  for (const deadline = Date.now() + 2000; ; await new Promise((r) => setTimeout(r, 50))) {
    const now = children()
    if (now.length === 0 || Date.now() > deadline) return now
  }
}

for (const engine of testEngines()) {describe(`first run of the service [${engine}]`, () => {
  let database: TestDatabase
  let server: ReturnType<typeof startServer>
  before(async () => {
    database = await createTestDatabase(engine)
    server = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' })
  })
  after(async () => {
    server.child.kill('SIGKILL')
    await database.cleanup()
  })

  it('creates a first project, prints its keys and a curl command that answers', async () => {
    const [, apiKey, url] = await server.waitFor(/curl -H "Authorization: Bearer (sw_api_[\w-]+)" (http:\/\/\S+)\n/)
    assert.match(server.output(), /Ingest key \(public, write-only; for the SDK\): sw_ing_/)
    const res = await fetch(url ?? '', { headers: { authorization: `Bearer ${apiKey ?? ''}` } })
    assert.equal(res.status, 200)
    const body = await res.json() as { project: { name: string }; total: number }
    assert.equal(body.project.name, 'My website')
    assert.equal(body.total, 0)
  })

  it('makes the owner admin with a generated password on first start, prints it once, and it signs in', async () => {
    const [, base, password] = await server.waitFor(/Dashboard: (http:\/\/\S+)\/app {3}sign in as: admin {3}password: (\w+)\n/)
    const signIn = (pw: string) => fetch(`${base ?? ''}/app/api/session`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-sessionwatch': '1' }, body: JSON.stringify({ password: pw }),
    })
    assert.equal((await signIn(password ?? '')).status, 204)
    assert.equal((await signIn('not it')).status, 401)
    assert.equal(server.output().match(/password: /g)?.length, 1)
  })

  it('shows a home page saying what to do next', async () => {
    const [, url] = await server.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\/sessions/)
    const res = await fetch(`${url ?? ''}/`)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /text\/html/)
    const page = await res.text()
    assert.match(page, /rotate-key/)
    assert.match(page, /\/api\/v1\/docs/)
    assert.ok(page.includes(`curl -H "Authorization: Bearer $API_KEY" ${url ?? ''}/api/v1/sessions`), 'the curl names the address the page was opened at')
    assert.ok(!page.includes('8080'))
    const hostile = await fetch(`${url ?? ''}/`, { headers: { host: 'evil"><script>x</script>' } })
    assert.ok(!(await hostile.text()).includes('<script>x'), 'the Host header is text, not markup')
    assert.equal((await fetch(`${url ?? ''}/favicon.ico`)).headers.get('content-type'), 'image/svg+xml')
  })

  it('prints where the dashboard is, last, on the first start', async () => {
    await server.waitFor(/Sessionwatch is running\. {2}Dashboard: http:\/\/\S+\/app/)
    assert.ok(server.output().lastIndexOf('Sessionwatch is running') > server.output().indexOf('password: '), 'after the keys, where it stays visible')
  })

  it('leaves no esbuild helper process running once the SDK and the dashboard are built', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const [, base] = await server.waitFor(/Sessionwatch is running\. {2}Dashboard: (http:\/\/\S+)\/app/)
    // esbuild's helper stays resident (~30 MB) unless stopped; the service has no other child. A stopped helper is
    // gone once the service has reaped it, a moment after the build.
    assert.deepEqual(await childrenOnceSettled(server.child.pid ?? 0), [], 'after the SDK and recorder are built at start')
    assert.equal((await fetch(`${base ?? ''}/app`)).status, 200, 'the dashboard is built on its first request')
    assert.deepEqual(await childrenOnceSettled(server.child.pid ?? 0), [], 'after the dashboard is built')
  })

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGTERM')
    assert.equal(await exited, 0)
  })

  it('a second start prints the dashboard URL again, no password, and logs requests only at debug', async () => {
    // LOG_LEVEL left at its default (info): access logs must not bury the banner.
    const again = startServer({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1' })
    try {
      const [, base] = await again.waitFor(/Sessionwatch is running\. {2}Dashboard: (http:\/\/\S+)\/app/)
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base ?? ''}/healthz`)).status, 200)
      assert.equal((await fetch(`${base ?? ''}/api/v1/sessions`)).status, 401)
      // The rule is that nothing is logged: a request's line would have come by now.
      await new Promise((r) => setTimeout(r, 200))
      assert.doesNotMatch(again.output(), /request completed|incoming request/)
      assert.doesNotMatch(again.output(), /password: /)
    } finally {
      again.child.kill('SIGKILL')
    }
  })
})}
