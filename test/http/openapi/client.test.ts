import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { startTestApp, type TestApp } from '../../helpers/app.ts'

/*
 * What a client generated from the live document must and must not accept. Every line is a claim
 * about the document: a `@ts-expect-error` whose line compiles, or a line that does not compile,
 * fails the test.
 */
const PROGRAM = `
import type { components, paths } from './api'

type Schemas = components['schemas']
type List = paths['/api/v1/sessions']['get']['responses'][200]['content']['application/json']
declare const list: List
const first = list.sessions[0]
export const errors: number | undefined = first?.events.errors
export const lastSeen: string | undefined = first?.lastSeenAt

type Detail = paths['/api/v1/sessions/{id}']['get']['responses'][200]['content']['application/json']
declare const detail: Detail
export const recorded: boolean = detail.session.recording.available
export const url: string | undefined = detail.events[0]?.url
export const message: string | null | undefined = detail.events[0]?.message

type Code = Schemas['ApiError']['code']
export const code: Code = 'invalid_parameter'
export const full: Code = 'storage_full'
// @ts-expect-error: not one of the stable codes
export const unknownCode: Code = 'no_such_code'

type Query = NonNullable<paths['/api/v1/sessions']['get']['parameters']['query']>
export const query: Query = { limit: 10, offset: 0, from: '2026-01-01', to: '2026-01-02T00:00:00Z' }
// @ts-expect-error: limit is a number
export const textLimit: Query = { limit: '10' }

type Batch = paths['/ingest/v1/batch']['post']['requestBody']['content']['application/json']
export const batch: Batch = {
  sessionKey: 'abcdefgh', batchId: 'b-1', sentAt: Date.now(),
  events: [{ type: 'ERROR', message: 'boom' }, { type: 'HTTP_ERROR', url: '/x', method: 'GET' }, { type: 'CONSOLE_ERROR' }],
}
export const beacon: paths['/ingest/v1/batch']['post']['requestBody']['content']['text/plain'] = batch
type ErrorEvent = Extract<Schemas['IngestEvent'], { type: 'ERROR' }>
// @ts-expect-error: an ERROR event needs message
export const noMessage: ErrorEvent = { type: 'ERROR' }
// @ts-expect-error: message must not be null on an ERROR event
export const nullMessage: ErrorEvent = { type: 'ERROR', message: null }
type HttpErrorEvent = Extract<Schemas['IngestEvent'], { type: 'HTTP_ERROR' }>
// @ts-expect-error: an HTTP_ERROR event needs method
export const noMethod: HttpErrorEvent = { type: 'HTTP_ERROR', url: '/x' }

type Answer = paths['/ingest/v1/batch']['post']['responses'][200]['content']['application/json']
export const nothingStored: Answer = { sessionId: null, accepted: 0, duplicates: 0 }
type Unauthorized = paths['/api/v1/sessions']['get']['responses'][401]
export const challenge: Unauthorized['headers']['WWW-Authenticate'] = 'Bearer realm="sessionwatch"'
export const retry: paths['/ingest/v1/batch']['post']['responses'][503]['headers']['Retry-After'] = 5
`

describe('a client generated from the OpenAPI document (openapi-typescript)', () => {
  let t: TestApp
  let dir: string
  before(async () => {
    t = await startTestApp('sqlite')
    dir = await mkdtemp(path.join(tmpdir(), 'sw-client-'))
  })
  after(async () => {
    await t.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('compiles a strict program that reads the answers and is refused what the server refuses', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json<Parameters<typeof openapiTS>[0]>()
    await writeFile(path.join(dir, 'api.ts'), astToString(await openapiTS(doc)))
    await writeFile(path.join(dir, 'program.ts'), PROGRAM)
    const program = ts.createProgram([path.join(dir, 'program.ts')], {
      strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, types: [],
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    })
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : ''
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n')
    })
    assert.deepEqual(problems, [])
  })
})
