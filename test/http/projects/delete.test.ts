import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { addWebhook } from '../../../src/alerts/service.ts'
import type { Database } from '../../../src/database.ts'
import { deleteProject } from '../../../src/projects/delete.ts'
import { getProject, updateProject, type ProjectWithKeys } from '../../../src/projects/service.ts'
import { invitePerson } from '../../../src/accounts/service.ts'
import { CLI_ACTOR } from '../../../src/audit/service.ts'
import { addComment } from '../../../src/issues/index.ts'
import { createLink } from '../../../src/replay-links/service.ts'
import { openStores, type RecordingStores } from '../../../src/recording/store/index.ts'
import { DAY_MS } from '../../../src/util/time.ts'
import { deleteExpired } from '../../../src/visits/index.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { testEngines } from '../../helpers/engines.ts'
import { batch } from '../../helpers/factories.ts'
import { chunkUpload, filesUnder, rrwebEvents } from '../../helpers/recording.ts'

/** Every table that keys rows by project (a `project_id` column), read from the schema itself: a new one is checked too. */
async function projectTables(db: Kysely<Database>): Promise<string[]> {
  return (await db.introspection.getTables()).filter((t) => t.columns.some((c) => c.name === 'project_id')).map((t) => t.name).sort()
}

/** The project's rows in each table (the projects table by its id), the tables with none left out. */
async function rowsOf(db: Kysely<Database>, projectId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of [...await projectTables(db), 'projects']) {
    const column = sql.ref(table === 'projects' ? 'id' : 'project_id')
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${column} = ${projectId}`.execute(db)
    const n = Number(rows[0]?.n ?? 0)
    if (n > 0) counts[table] = n
  }
  return counts
}

/** The tables a project with visits, errors, vitals, recordings, releases, a webhook, a source map and a quota fills. */
const FILLED = [
  'events', 'issue_comments', 'issue_days', 'issue_fingerprints', 'issue_release_totals', 'issue_sessions', 'issue_totals', 'issues',
  'page_days', 'page_totals', 'page_vital_totals', 'page_vitals', 'projects', 'quota_days', 'recording_chunks', 'recording_usage', 'release_days', 'release_units', 'release_users', 'releases', 'replay_links', 'session_days', 'session_terms', 'session_texts', 'sessions',
  'source_maps', 'term_bits', 'term_days', 'user_projects', 'webhook_deliveries', 'webhooks',
]

const MAP = JSON.stringify({ version: 3, file: 'app.js', sources: ['src/app.js'], names: [], mappings: 'AAAA' })

for (const engine of testEngines()) {
  describe(`project deletion [${engine}]`, () => {
    let dir: string
    let t: TestApp
    let stores: RecordingStores
    const root = () => path.join(dir, 'recordings')
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-project-delete-'))
      t = await startTestApp(engine, { RECORDINGS_URL: `file:${root()}`, WEBHOOK_ALLOW_PRIVATE: 'true' })
      stores = await openStores(t.app.db, t.app.config.recordings)
    })
    after(async () => {
      await stores.close()
      await t.close()
      fs.rmSync(dir, { recursive: true, force: true })
    })

    const ingestAs = (p: ProjectWithKeys, body: unknown) => t.ingest(body, { headers: { 'x-ingest-key': p.ingestKey } })
    const auth = (key: string) => ({ authorization: `Bearer ${key}` })

    /** A project with `visits` visits, each with an error, a recording of two chunks, a release and a user, a webhook, a source map and a quota. */
    async function filledProject(name: string, visits: number): Promise<ProjectWithKeys> {
      const p = await t.newProject(name)
      await updateProject(t.app.db, p.id, { dailyEventQuota: 10_000 })
      await addWebhook(t.app.db, p.id, 'http://127.0.0.1:9/hook', t.app.config.webhooks)
      const map = await t.app.inject({ method: 'POST', url: '/upload/v1/sourcemaps?url=https://shop.example/app.js', payload: MAP, headers: { ...auth(p.uploadKey), 'content-type': 'application/json' } })
      assert.equal(map.statusCode, 201, map.body)
      const start = Date.now() - 60_000
      for (let v = 0; v < visits; v++) {
        const res = await ingestAs(p, batch(`${name}-visit-${v}`, [
          { type: 'ERROR', message: `TypeError: ${name} zebrafinch ${v % 2}`, createdAt: start + v },
          { type: 'CLICK', message: 'button#buy', url: 'https://shop.example/cart', createdAt: start + v + 1 },
          { type: 'WEB_VITAL', name: 'LCP', value: 1800, url: 'https://shop.example/cart', createdAt: start + v + 2 },
        ], {
          release: '1.0.0', environment: 'production', user: { id: `user-${v}` },
          recording: [0, 1].map((c) => chunkUpload(`c${c}`, rrwebEvents(start + c * 5000, 2, `${name} ${v} ${c}`))),
        }))
        assert.equal(res.statusCode, 200, res.body)
      }
      // A person with a role on it, a comment on an issue and a public link to a replay.
      const person = await invitePerson(t.app.db, CLI_ACTOR, `${name.toLowerCase()}@example.com`, { role: 'member', projects: [p.id] })
      const issue = await t.app.db.selectFrom('issues').select('id').where('project_id', '=', p.id).executeTakeFirstOrThrow()
      await addComment(t.app.db, p.id, issue.id, { id: person.person.id, email: person.person.email }, 'seen it')
      await updateProject(t.app.db, p.id, { publicReplays: true })
      const visit = await t.app.db.selectFrom('sessions').select('id').where('project_id', '=', p.id).executeTakeFirstOrThrow()
      await createLink(t.app.db, await getProject(t.app.db, p.id), visit.id, person.person.id)
      return p
    }

    it('deletes every row and recording object of the project, and only its own; its keys answer 401 at once', async () => {
      const doomed = await filledProject('Doomed', 3)
      const kept = await filledProject('Kept', 2)
      const keptRows = await rowsOf(t.app.db, kept.id)
      assert.deepEqual(Object.keys(await rowsOf(t.app.db, doomed.id)).sort(), FILLED, 'the project fills every table before')
      assert.equal(filesUnder(path.join(root(), doomed.id)), 6)
      assert.equal(filesUnder(path.join(root(), kept.id)), 4)
      // Read once, so the key is in the project cache the deletion must drop.
      assert.equal((await t.get('/api/v1/sessions', doomed.apiKey)).statusCode, 200)
      const fts = async () => (engine === 'sqlite'
        ? Number((await sql<{ n: number }>`select count(*) as n from session_fts where session_fts match '"Doomed zebrafinch"'`.execute(t.app.db)).rows[0]?.n)
        : null)
      if (engine === 'sqlite') assert.ok((await fts() ?? 0) > 0, 'the text index holds the visits')

      const progress: number[] = []
      const result = await deleteProject(t.app.db, stores, doomed.id, { onProgress: (n) => progress.push(n) })
      assert.deepEqual(result, { id: doomed.id, visits: 3, objects: 6 })
      assert.deepEqual(progress, [3])
      assert.deepEqual(await rowsOf(t.app.db, doomed.id), {}, 'no table holds a row of it')
      if (engine === 'sqlite') assert.equal(await fts(), 0, 'the text index followed session_texts')
      assert.equal(filesUnder(path.join(root(), doomed.id)), 0, 'no object of it is left in the store')
      assert.deepEqual(await t.app.db.selectFrom('recording_trash').selectAll().execute(), [], 'the trash is purged')

      assert.equal((await t.get('/api/v1/sessions', doomed.apiKey)).statusCode, 401)
      assert.equal((await ingestAs(doomed, batch('late-visit', [{ type: 'CLICK', message: 'x' }]))).statusCode, 401)
      const upload = await t.app.inject({ method: 'POST', url: '/upload/v1/sourcemaps?url=https://shop.example/b.js', payload: MAP, headers: { ...auth(doomed.uploadKey), 'content-type': 'application/json' } })
      assert.equal(upload.statusCode, 401)

      assert.deepEqual(await rowsOf(t.app.db, kept.id), keptRows, 'the other project keeps every row')
      assert.equal(filesUnder(path.join(root(), kept.id)), 4, 'and every object')
      const sessions = json<{ sessions: { id: string }[] }>(await t.get('/api/v1/sessions', kept.apiKey)).sessions
      assert.equal(sessions.length, 2)
      const chunks = json<{ chunks: { id: string }[] }>(await t.get(`/api/v1/sessions/${sessions[0]?.id ?? ''}/recording`, kept.apiKey)).chunks
      const chunk = await t.app.inject({ url: `/api/v1/sessions/${sessions[0]?.id ?? ''}/recording/chunks/${chunks[0]?.id ?? ''}`, headers: auth(kept.apiKey) })
      assert.equal(chunk.statusCode, 200, 'its recordings are served still')

      assert.deepEqual(await deleteProject(t.app.db, stores, doomed.id), { id: doomed.id, visits: 0, objects: 0 }, 'a second run finds nothing left')
    })

    it('finishes when run again after a run stopped half-way', async () => {
      const doomed = await filledProject('Stopped', 3)
      // A first batch deleted by hand, as a run killed after its first transaction leaves it.
      assert.equal(await deleteExpired(t.app.db, doomed.id, Date.now() + DAY_MS, 1), 1)
      // Then a run stopped after its walk: the visits are gone, the project and its other rows are still there.
      await assert.rejects(deleteProject(t.app.db, stores, doomed.id, { onProgress: () => { throw new Error('killed') } }), /killed/)
      const left = await rowsOf(t.app.db, doomed.id)
      assert.equal(left.sessions, undefined)
      assert.ok(left.projects === 1 && left.issues !== undefined && left.source_maps === 1, 'the project row goes last')
      assert.equal((await t.get('/api/v1/sessions', doomed.apiKey)).statusCode, 200, 'its keys work until it is deleted')

      const result = await deleteProject(t.app.db, stores, doomed.id)
      assert.deepEqual(result, { id: doomed.id, visits: 0, objects: 6 }, 'the objects the stopped runs trashed are deleted now')
      assert.deepEqual(await rowsOf(t.app.db, doomed.id), {})
      assert.equal(filesUnder(path.join(root(), doomed.id)), 0)
      assert.equal((await t.get('/api/v1/sessions', doomed.apiKey)).statusCode, 401)
    })
  })
}
