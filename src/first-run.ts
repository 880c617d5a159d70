import type { FastifyInstance } from 'fastify'
import { describeKeys, withDsn } from './projects/format.ts'
import { claimOnce } from './db/meta.ts'
import { countProjects, createProject, FIRST_PROJECT_CLAIM } from './projects/service.ts'

/**
 * What every start prints once it listens: on the first start the dashboard password (unless ADMIN_PASSWORD
 * is set) and, with an empty database, a first project's keys with a curl command to paste, so a newcomer's
 * first API answer is one copy away; on every start, last, where the dashboard is. Several processes starting
 * on one empty PostgreSQL database create one project between them, not one each.
 */
export async function firstRun(app: FastifyInstance, url: string): Promise<void> {
  const base = url.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost')
  await firstStart(app, base)
  const shown = app.config.publicUrl ?? base
  process.stdout.write(`\nSessionwatch is running.  Dashboard: ${shown}/app   API reference: ${shown}/api/v1/docs   Home: ${shown}/\n\n`)
}

async function firstStart(app: FastifyInstance, base: string): Promise<void> {
  const password = app.firstOwnerPassword
  if (password !== null) {
    process.stdout.write([
      '',
      `Dashboard: ${base}/app   sign in as: admin   password: ${password}`,
      'Shown once: it is stored hashed. Set ADMIN_PASSWORD to choose one, or run `npx sessionwatch admin reset-password`.',
      'Rename the account to your email with `npx sessionwatch user rename --email admin --to you@example.com`.',
      '',
    ].join('\n'))
  }
  if ((await countProjects(app.db)) > 0) return
  if (!(await claimOnce(app.db, FIRST_PROJECT_CLAIM, new Date().toISOString()))) return
  const project = withDsn(await createProject(app.db, { name: 'My website', domain: 'localhost' }), app.config.publicUrl ?? base)
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
    'Already using Sentry? Point its SDK here, nothing else changes:',
    `  Sentry.init({ dsn: '${project.dsn}' })`,
    '',
    'Keep the API key: it is stored hashed and cannot be shown again (rotate it in the dashboard\'s API tab or with `npx sessionwatch project rotate-key`).',
    '',
  ].join('\n'))
}
