import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AppError } from '../../../src/errors.ts'
import { bundleDebugId, canonicalDebugId, parseMap } from '../../../src/sourcemaps/map.ts'

const valid = { version: 3, sources: ['src/a.js'], names: ['checkout'], mappings: 'AAAAA' }
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))

/** Asserts the map is refused as invalid_body, naming the file and saying `problem`. */
function refused(value: unknown, problem: RegExp): void {
  assert.throws(() => parseMap(bytes(value), 'dist/app.js.map'), (error: unknown) => {
    assert.ok(error instanceof AppError)
    assert.equal(error.code, 'invalid_body')
    assert.match(error.message, /^dist\/app\.js\.map is not a valid source map: /)
    assert.match(error.message, problem)
    assert.match(error.message, /version 3 JSON/, 'says what a map is')
    return true
  })
}

describe('parseMap: what a stored map must be', () => {
  it('takes a version 3 map, an index map, and the XSSI-guarded form', () => {
    assert.equal(parseMap(bytes(valid), 'a.map').map.sources.length, 1)
    const indexed = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: valid }] }
    assert.deepEqual(parseMap(bytes(indexed), 'a.map').map.sources, ['src/a.js'])
    assert.equal(parseMap(bytes(`)]}'\n${JSON.stringify(valid)}`), 'a.map').debugId, null)
  })

  it('refuses what is not JSON, empty, or not an object', () => {
    refused('{"version": 3,', /it is not JSON/)
    refused('', /it is empty/)
    refused([valid], /it is not a JSON object/)
  })

  it('refuses versions other than 3', () => {
    refused({ ...valid, version: 2 }, /"version" is 2; only version 3/)
    refused({ ...valid, version: undefined }, /"version" is missing/)
  })

  it('refuses a map without mappings or sources, or with fields of the wrong shape', () => {
    refused({ ...valid, mappings: undefined }, /no "mappings" string/)
    refused({ ...valid, sources: undefined }, /no "sources" array/)
    refused({ ...valid, sources: [1] }, /no "sources" array/)
    refused({ ...valid, names: 'checkout' }, /"names" is not an array/)
    refused({ ...valid, sourcesContent: 'x' }, /"sourcesContent" is not an array/)
    refused({ ...valid, ignoreList: ['a'] }, /"ignoreList" is not an array/)
    refused({ version: 3, sections: {} }, /"sections" is not an array/)
  })

  it('refuses mappings that do not decode to positions inside the map', () => {
    refused({ ...valid, mappings: 'AAAA;!!' }, /outside base64 VLQ/)
    const decoded = { ...valid, mappings: [[[0, 0]]] }
    refused({ version: 3, sections: [{ offset: { line: 0, column: 0 }, map: decoded }] }, /segment without a valid original line and column/)
    refused({ ...valid, mappings: 'ACAA' }, /name source 1, but "sources" has 1/)
    refused({ ...valid, mappings: 'AAAAC' }, /name 1, but "names" has 1/)
    refused({ ...valid, mappings: 'D' }, /segment without a valid column/)
    refused({ ...valid, mappings: 'AAFA' }, /segment without a valid original line and column/)
  })

  it('refuses a map that trace-mapping itself refuses', () => {
    refused({ version: 3, sections: [{ offset: { line: 0, column: 0 } }] }, /valid source map: .+/)
  })
})

describe('debug IDs', () => {
  const id = '85314830-023f-4cf1-a267-535f4e37bb17'

  it('compare ignoring case and dashes: stored lowercase 8-4-4-4-12', () => {
    assert.equal(canonicalDebugId('85314830023F4CF1A267535F4E37BB17'), id)
    assert.equal(canonicalDebugId(id.toUpperCase()), id)
    assert.equal(canonicalDebugId('abcdef-012345'), 'abcdef012345', 'a shorter ID stays as written, lowercase and without dashes')
    assert.equal(canonicalDebugId('not-a-debug-id'), null)
    assert.equal(canonicalDebugId('------------'), null)
  })

  it('are read from the map as debugId, or debug_id as Sentry\'s tools wrote it', () => {
    assert.equal(parseMap(bytes({ ...valid, debugId: id.toUpperCase() }), 'a.map').debugId, id)
    assert.equal(parseMap(bytes({ ...valid, debug_id: id }), 'a.map').debugId, id)
    refused({ ...valid, debugId: 'nope' }, /debug ID "nope" is not one/)
  })

  it('are read from the last 5 lines of a bundle, not above', () => {
    const code = 'console.log(1)'
    assert.equal(bundleDebugId(`${code}\n//# debugId=${id}\n//# sourceMappingURL=app.js.map\n`), id)
    assert.equal(bundleDebugId(`${code}\n//# debugId=${id}\n1\n2\n3\n4\n`), id)
    assert.equal(bundleDebugId(`${code}\n//# debugId=${id}\n1\n2\n3\n4\n5\n`), null)
    assert.equal(bundleDebugId(`${code}\nvar s = "//# debugId=${id}"\n`), null)
    assert.equal(bundleDebugId(code), null)
  })
})
