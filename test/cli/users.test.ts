import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts'
import { testEngines } from '../helpers/engines.ts'

for (const engine of testEngines()) {describe(`sessionwatch user and audit [${engine}]`, () => {
  let database: TestDatabase
  let env: Record<string, string>
  let projectId: string
  before(async () => {
    database = await createTestDatabase(engine)
    env = { DATABASE_URL: database.url, PUBLIC_URL: 'https://sw.example.com' }
    projectId = (JSON.parse((await cli(['project', 'create', '--name', 'Shop', '--domain', 'shop.example', '--json'], env)).stdout) as { id: string }).id
  })
  after(() => database.cleanup())

  it('user add prints a one-time invitation URL on PUBLIC_URL, and user list shows the person invited', async () => {
    const added = await cli(['user', 'add', '--email', 'Ann@Example.com', '--role', 'viewer', '--projects', projectId, '--json'], env)
    assert.equal(added.code, 0, added.stderr)
    const person = JSON.parse(added.stdout) as { email: string; role: string | null; projects: { projectId: string; role: string }[]; inviteUrl: string; expiresAt: string }
    assert.equal(person.email, 'ann@example.com')
    assert.equal(person.role, null)
    assert.deepEqual(person.projects, [{ projectId, role: 'viewer' }])
    assert.match(person.inviteUrl, /^https:\/\/sw\.example\.com\/app#\/link\/[\w-]{43}$/)
    const days = (Date.parse(person.expiresAt) - Date.now()) / 86_400_000
    assert.ok(days > 6.9 && days <= 7, `valid 7 days (${days})`)
    const text = await cli(['user', 'add', '--email', 'bob@example.com', '--role', 'member'], env)
    assert.match(text.stdout, /Invited bob@example\.com \(member on every project\)\.\nInvitation link \(one use, until .+\):\n {2}https:\/\/sw\.example\.com\/app#\/link\//)
    const list = JSON.parse((await cli(['user', 'list', '--json'], env)).stdout) as { email: string; hasPassword: boolean }[]
    assert.deepEqual(list.map((p) => [p.email, p.hasPassword]), [['admin', true], ['ann@example.com', false], ['bob@example.com', false]])
    const plain = await cli(['user', 'list'], env)
    assert.match(plain.stdout, /ann@example\.com {2}viewer on p_[\w-]+ {2}\(invited, no password yet\) {2}last sign-in: never/)
  })

  it('refuses a bad email, role or project, a second account and removing the last owner, naming the problem', async () => {
    const badRole = await cli(['user', 'add', '--email', 'x@example.com', '--role', 'god'], env)
    assert.equal(badRole.code, 2)
    assert.match(badRole.stderr, /--role must be one of viewer, member, admin, owner \(got "god"\)/)
    const badEmail = await cli(['user', 'add', '--email', 'not-an-email', '--role', 'viewer'], env)
    assert.equal(badEmail.code, 1)
    assert.match(badEmail.stderr, /"not-an-email" is not an email address/)
    const unknown = await cli(['user', 'add', '--email', 'x@example.com', '--role', 'viewer', '--projects', 'p_nope'], env)
    assert.match(unknown.stderr, /No project with id "p_nope"/)
    const twice = await cli(['user', 'add', '--email', 'ann@example.com', '--role', 'viewer'], env)
    assert.match(twice.stderr, /ann@example\.com already has an account/)
    const ownerPerProject = await cli(['user', 'add', '--email', 'x@example.com', '--role', 'owner', '--projects', projectId], env)
    assert.match(ownerPerProject.stderr, /owner is a role on every project/)
    const lastOwner = await cli(['user', 'remove', '--email', 'admin'], env)
    assert.equal(lastOwner.code, 1)
    assert.match(lastOwner.stderr, /admin is the only owner: make someone else owner first/)
  })

  it('set-role, rename, reset-password and remove change the person, and the audit trail says who did what', async () => {
    const set = await cli(['user', 'set-role', '--email', 'bob@example.com', '--role', 'admin', '--projects', projectId, '--json'], env)
    assert.equal(set.code, 0, set.stderr)
    assert.deepEqual((JSON.parse(set.stdout) as { projects: unknown }).projects, [{ projectId, role: 'admin' }])
    const renamed = await cli(['user', 'rename', '--email', 'admin', '--to', 'owner@example.com'], env)
    assert.equal(renamed.code, 0, renamed.stderr)
    const reset = await cli(['user', 'reset-password', '--email', 'owner@example.com', '--json'], env)
    assert.match((JSON.parse(reset.stdout) as { inviteUrl: string }).inviteUrl, /#\/link\//)
    const removed = await cli(['user', 'remove', '--email', 'bob@example.com'], env)
    assert.equal(removed.code, 0, removed.stderr)
    assert.match((await cli(['user', 'remove', '--email', 'bob@example.com'], env)).stderr, /No person with email "bob@example\.com"/)
    await cli(['project', 'update', '--project', projectId, '--retention-days', '9'], env)
    await cli(['erase', '--project', projectId, '--user', 'carol-the-visitor'], env)
    const lines = JSON.parse((await cli(['audit', 'list', '--json'], env)).stdout) as { actor: string; action: string; target: string | null; projectId: string | null; detail: unknown }[]
    const actions = lines.map((l) => `${l.action} ${l.target ?? l.projectId ?? ''}`)
    for (const line of ['user_invited ann@example.com', 'role_changed bob@example.com', 'user_renamed owner@example.com', 'password_link_made owner@example.com',
      'user_removed bob@example.com', `settings_changed ${projectId}`, `erase ${projectId}`, `project_created Shop`]) {
      assert.ok(actions.includes(line), `${line} in ${actions.join(', ')}`)
    }
    assert.ok(lines.every((l) => l.actor === 'cli'))
    const erase = lines.find((l) => l.action === 'erase')
    assert.deepEqual(erase?.detail, { by: 'user', visits: 0 })
    assert.ok(!JSON.stringify(lines).includes('carol-the-visitor'), 'the erased visitor is not named')
    assert.equal(actions[0], `erase ${projectId}`, 'newest first')
    const filtered = JSON.parse((await cli(['audit', 'list', '--project', projectId, '--since', '2020-01-01', '--json'], env)).stdout) as { projectId: string }[]
    assert.ok(filtered.length >= 3 && filtered.every((l) => l.projectId === projectId))
    assert.match((await cli(['audit', 'list', '--since', 'yesterday'], env)).stderr, /--since must be a date such as 2026-11-01/)
    assert.match((await cli(['audit', 'list', '--user', 'nobody@example.com'], env)).stderr, /No person with email "nobody@example\.com"/)
    assert.match((await cli(['audit', 'list'], env)).stdout, /Z {2}cli {2}erase {2}p_/)
  })
})}
