import type { FastifyInstance } from 'fastify'
import { describeKeys } from './projects/format.ts'
import { claimOnce } from './db/meta.ts'
import { countProjects, createProject } from './projects/service.ts'

/**
 * With an empty database, creates a first project and prints its keys with a curl command
 * to paste: a newcomer's first API answer is one copy away. Several processes starting on one
 * empty PostgreSQL database create one project between them, not one each.
 */
export async function firstRun(app: FastifyInstance, url: string): Promise<void> {
  if ((await countProjects(app.db)) > 0) return
  if (!(await claimOnce(app.db, 'first_project', new Date().toISOString()))) return
  const project = await createProject(app.db, { name: 'My website', domain: 'localhost' })
  const base = url.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost')
  process.stdout.write([
    '',
    'First start: created a project for you.',
    describeKeys(project),
    '',
    'Try the API:',
    `  curl -H "Authorization: Bearer ${project.apiKey}" ${base}/api/v1/sessions`,
    '',
    'Record a site (or open the demo shop first):',
    `  <script src="${base}/sdk.js"></script>`,
    `  <script>Sessionwatch.init({ ingestKey: '${project.ingestKey}', endpoint: '${base}' })</script>`,
    `  Demo shop: ${base}/demo`,
    '',
    `API reference: ${base}/api/v1/docs   Home: ${base}/`,
    'Keep the API key: it is stored hashed and cannot be shown again (rotate it with `npx sessionwatch project rotate-key`).',
    '',
  ].join('\n'))
}
