import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type BuildOptions } from '../../src/app.ts'
import { loadConfig, type Engine } from '../../src/config.ts'
import { createProject, type ProjectWithKeys } from '../../src/projects/service.ts'
import { createTestDatabase } from './databases.ts'

export interface TestApp {
  app: FastifyInstance
  /** The DATABASE_URL the app runs on. */
  databaseUrl: string
  project: ProjectWithKeys
  /** GET with the project API key. */
  get(url: string, apiKey?: string): Promise<LightMyRequestResponse>
  /** POST a batch to ingest with the project ingest key. */
  ingest(body: unknown, opts?: Partial<InjectOptions>): Promise<LightMyRequestResponse>
  newProject(name?: string, retentionDays?: number): Promise<ProjectWithKeys>
  close(): Promise<void>
}

/**
 * Builds the real app, exactly as production does, on a fresh database with one project. `build` passes the
 * factory's test seams (the webhook worker's timings and DNS).
 */
export async function startTestApp(engine: Engine, env: Record<string, string> = {}, build: Omit<BuildOptions, 'config'> = {}): Promise<TestApp> {
  const db = await createTestDatabase(engine)
  const config = loadConfig({ DATABASE_URL: db.url, RETENTION_SWEEP_SECONDS: '0', ...env })
  const app = await buildApp({ ...build, config })
  const newProject = (name = 'Shop', retentionDays?: number) =>
    createProject(app.db, { name, domain: 'shop.example', retentionDays })
  const project = await newProject()
  return {
    app,
    databaseUrl: db.url,
    project,
    newProject,
    get: (url, apiKey = project.apiKey) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${apiKey}` } }),
    ingest: (body, opts = {}) => app.inject({
      method: 'POST', url: '/ingest/v1/batch', payload: body as InjectOptions['payload'],
      ...opts,
      headers: { 'x-ingest-key': project.ingestKey, 'content-type': 'application/json', ...opts.headers },
    }),
    close: async () => {
      await app.close()
      await db.cleanup()
    },
  }
}

// Callers name the shape they expect of the body; that is the point of the type parameter.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export const json = <T = Record<string, unknown>>(res: LightMyRequestResponse): T => res.json<T>()
