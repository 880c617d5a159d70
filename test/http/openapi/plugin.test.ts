import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MAX_CURSOR_LENGTH } from '../../../src/util/limits.ts'
import { json, startTestApp, type TestApp } from '../../helpers/app.ts'
import { TAG_PARAM } from '../../../src/sessions/schema.ts'

type Media = Record<string, { schema: { $ref?: string } }>
type Op = { requestBody?: { content: Media }; operationId: string; parameters?: { name: string; in: string; required?: boolean; style?: string; explode?: boolean; schema: Record<string, unknown> }[]; responses: Record<string, unknown>; security: unknown[] }
interface Doc {
  openapi: string
  info: { version: string; description: string }
  paths: Record<string, Record<string, Op>>
  components: { schemas: Record<string, { properties: Record<string, { type?: unknown }>; required?: string[] }>; securitySchemes: Record<string, Record<string, string>> }
}

describe('OpenAPI document', () => {
  let t: TestApp
  let doc: Doc
  before(async () => {
    t = await startTestApp('sqlite')
    const res = await t.app.inject({ url: '/api/v1/openapi.json' })
    assert.equal(res.statusCode, 200)
    doc = json<Doc>(res)
  })
  after(() => t.close())

  it('is OpenAPI 3.1 with interface version 1.0.0, served without a key', () => {
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(doc.info.version, '1.0.0')
  })

  it('describes listSessions and getSession with every status', () => {
    const list = doc.paths['/api/v1/sessions']?.get
    const get = doc.paths['/api/v1/sessions/{id}']?.get
    assert.ok(list && get)
    assert.equal(list.operationId, 'listSessions')
    assert.equal(get.operationId, 'getSession')
    assert.deepEqual(Object.keys(list.responses).sort(), ['200', '400', '401', '431', '503'])
    assert.deepEqual(Object.keys(get.responses).sort(), ['200', '401', '404', '431', '503'])
    assert.deepEqual(get.parameters?.map((p) => [p.name, p.in, p.required]), [['id', 'path', true]])
  })

  it('states the parameter bounds and defaults of the spec', () => {
    const params = Object.fromEntries((doc.paths['/api/v1/sessions']?.get?.parameters ?? []).map((p) => [p.name, p]))
    assert.deepEqual(Object.keys(params).sort(), ['after', 'browser', 'country', 'date', 'errors', 'from', 'issue', 'limit', 'offset', 'os', 'q', 'recording',
      'status', 'tags', 'to', 'type', 'url', 'user', 'vital'])
    assert.deepEqual(params.after?.schema, { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH, pattern: '^WzEsI[A-Za-z0-9_-]+$' })
    assert.deepEqual([params.tags?.style, params.tags?.explode, params.tags?.schema.propertyNames], ['form', true, { pattern: TAG_PARAM }],
      'tag.<key> parameters as the properties of a form-style object, each sent as a parameter of its own')
    assert.deepEqual(doc.components.schemas.SessionList?.properties.next?.type, ['string', 'null'], 'every list answer carries next')
    assert.deepEqual(params.limit?.schema, { type: 'integer', minimum: 1, maximum: 200, default: 50 })
    assert.deepEqual(params.offset?.schema, { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
    assert.ok(Object.values(params).every((p) => p.in === 'query' && p.required !== true))
  })

  it('documents both auth schemes, the error body, the event fields and the decisions', () => {
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearerAuth?.description })
    assert.equal(doc.components.securitySchemes.apiKeyHeader?.name, 'X-Api-Key')
    assert.deepEqual(doc.components.schemas.ApiError?.required?.sort(), ['code', 'error', 'message', 'statusCode'])
    assert.deepEqual(Object.keys(doc.components.schemas.SessionEvent?.properties ?? {}),
      ['id', 'type', 'createdAt', 'url', 'method', 'message', 'stack', 'statusCode', 'durationMs', 'reqBody', 'resBody', 'fingerprint',
        'selector', 'text', 'count', 'name', 'value', 'rating', 'element', 'issueId', 'frames'])
    assert.deepEqual(Object.keys(doc.components.schemas.Recording?.properties ?? {}), ['available', 'chunks'])
    for (const phrase of ['lastSeenAt descending, then id descending', 'Retention', 'WWW-Authenticate', 'never clamped', 'ERROR and HTTP_ERROR']) {
      assert.ok(doc.info.description.includes(phrase), phrase)
    }
  })

  it('names every request and response body as a component, none shadowing a TypeScript or DOM global', () => {
    const bodies: string[] = []
    for (const [url, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const media = [op.requestBody?.content, ...Object.values(op.responses as Record<string, { content?: Media }>).map((r) => r.content)]
        for (const [type, { schema }] of media.flatMap((m) => Object.entries(m ?? {}))) {
          assert.match(String(schema.$ref), /^#\/components\/schemas\/\w+$/, `${method} ${url} ${type}`)
          bodies.push(String(schema.$ref).split('/').pop() ?? '')
        }
      }
    }
    for (const name of ['Session', 'SessionDetail', 'SessionEvent', 'Project', 'ApiError', 'SessionList', 'SessionDetailResponse',
      'SessionRecording', 'RecordingChunkEvents', 'IngestBatch', 'IngestResult', 'Health']) {
      assert.ok(doc.components.schemas[name], name)
    }
    assert.ok(bodies.includes('IngestBatch') && bodies.includes('Health'))
    const lib = path.dirname(createRequire(import.meta.url).resolve('typescript'))
    const globals = new Set(['lib.dom.d.ts', 'lib.es5.d.ts', 'lib.es2015.collection.d.ts', 'lib.es2015.promise.d.ts']
      .flatMap((file) => [...readFileSync(path.join(lib, file), 'utf8').matchAll(/^(?:declare var|interface|type|declare function) (\w+)/gm)])
      .map((m) => m[1]))
    assert.ok(globals.has('Event') && globals.has('Error'), 'the globals are read')
    assert.deepEqual(Object.keys(doc.components.schemas).filter((name) => globals.has(name)), [])
  })

  it('names a relative server, so clients call the server that served the document', () => {
    assert.deepEqual((doc as unknown as { servers: { url: string }[] }).servers.map((s) => s.url), ['/'])
  })

  it('documents the ingest endpoint', () => {
    const op = doc.paths['/ingest/v1/batch']?.post
    assert.ok(op)
    assert.equal(op.operationId, 'ingestBatch')
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '401', '413', '415', '429', '431', '503'])
  })

  it('lists the 429 of the rate limit and quota, with Retry-After, on the four ingest routes', () => {
    for (const path of ['/ingest/v1/batch', '/ingest/v1/recording', '/api/{projectId}/envelope/', '/api/{projectId}/store/']) {
      const answer = doc.paths[path]?.post?.responses['429'] as { description?: string; headers?: Record<string, unknown> } | undefined
      assert.match(String(answer?.description), /rate limit or has spent its daily event quota/, path)
      assert.ok(answer?.headers?.['Retry-After'], `${path} documents Retry-After`)
    }
  })

  it('documents the source map upload with the upload key, with the map as the raw body; the API key writes nothing', () => {
    const op = doc.paths['/upload/v1/sourcemaps']?.post
    assert.ok(op)
    assert.equal(op.operationId, 'uploadSourceMap')
    assert.deepEqual(op.security, [{ uploadKeyBearer: [] }, { uploadKeyHeader: [] }])
    assert.deepEqual(Object.keys(op.responses).sort(), ['201', '400', '401', '413', '415', '431', '503'])
    assert.deepEqual(op.parameters?.map((p) => [p.name, p.in, p.required === true]), [
      ['url', 'query', true], ['release', 'query', false], ['debugId', 'query', false], ['file', 'query', false],
    ])
    assert.deepEqual(Object.keys(op.requestBody?.content ?? {}), ['application/json', 'application/octet-stream'])
    assert.ok(doc.components.schemas.StoredSourceMap && doc.components.schemas.ResolvedFrame)
    const writes = Object.entries(doc.paths).flatMap(([url, ops]) => Object.entries(ops)
      .filter(([method, o]) => method !== 'get' && o.security.some((s) => 'bearerAuth' in (s as object))).map(() => url))
    assert.deepEqual(writes, [], 'the API key writes nothing')
  })

  it('documents the recording extension with the API key, and keeps the dashboard\'s own API out', () => {
    const list = doc.paths['/api/v1/sessions/{id}/recording']?.get
    const chunk = doc.paths['/api/v1/sessions/{id}/recording/chunks/{chunkId}']?.get
    assert.equal(list?.operationId, 'getSessionRecording')
    assert.equal(chunk?.operationId, 'getSessionRecordingChunk')
    assert.deepEqual(list.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }])
    assert.deepEqual(Object.keys(chunk.responses).sort(), ['200', '401', '404', '431', '503'])
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/app')), [])
  })

  it('documents the issues extension with the API key: list, get, comments, and the sessions of an issue', () => {
    const list = doc.paths['/api/v1/issues']?.get
    const get = doc.paths['/api/v1/issues/{id}']?.get
    assert.equal(list?.operationId, 'listIssues')
    assert.equal(get?.operationId, 'getIssue')
    assert.deepEqual(list.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }])
    assert.deepEqual((list.parameters ?? []).map((p) => p.name).sort(), ['after', 'assignee', 'from', 'limit', 'offset', 'sort', 'status', 'to'])
    assert.deepEqual(doc.components.schemas.IssueList?.properties.next?.type, ['string', 'null'])
    assert.deepEqual(Object.keys(get.responses).sort(), ['200', '401', '404', '431', '503'])
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/issues')), ['/api/v1/issues', '/api/v1/issues/{id}', '/api/v1/issues/{id}/comments'])
    assert.equal(doc.paths['/api/v1/issues/{id}/comments']?.get?.operationId, 'listIssueComments')
  })

  it('documents the releases extension with the API key: list and get', () => {
    const list = doc.paths['/api/v1/releases']?.get
    const get = doc.paths['/api/v1/releases/{release}']?.get
    assert.equal(list?.operationId, 'listReleases')
    assert.equal(get?.operationId, 'getRelease')
    assert.deepEqual(list.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }])
    assert.deepEqual((list.parameters ?? []).map((p) => p.name).sort(), ['after', 'environment', 'from', 'limit', 'offset', 'to'])
    assert.deepEqual((get.parameters ?? []).map((p) => p.name).sort(), ['environment', 'release'])
    assert.deepEqual(Object.keys(get.responses).sort(), ['200', '400', '401', '404', '431', '503'])
  })

  it('serves a readable HTML reference at /api/v1/docs', async () => {
    const res = await t.app.inject({ url: '/api/v1/docs' })
    const page = res.statusCode === 302 ? await t.app.inject({ url: String(res.headers.location) }) : res
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /text\/html/)
  })
})

describe('OpenAPI document: what the server answers before its routes', () => {
  let t: TestApp
  before(async () => { t = await startTestApp('sqlite') })
  after(() => t.close())

  it('lists 431 on every operation and 404 on every one with path parameters, as the server answers them', async () => {
    const doc = json<Doc>(await t.app.inject({ url: '/api/v1/openapi.json' }))
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        assert.ok('431' in op.responses, `${method} ${route}: 431`)
        if (route.includes('{')) assert.ok('404' in op.responses, `${method} ${route}: 404`)
      }
    }
    const envelope = await t.app.inject({ method: 'POST', url: '/api/x1/envelope/?sentry_key=abc', payload: '{}' })
    assert.equal(envelope.statusCode, 404, 'a project id outside its pattern')
  })
})
