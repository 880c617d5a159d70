/**
 * The startup options a PostgreSQL connection opens with (src/db/postgres/dialect.ts): the service's settings after those
 * the DATABASE_URL carries, none of either lost.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { withStartupOptions } from '../../../src/db/postgres/dialect.ts'

const SERVICE = '-c max_parallel_workers_per_gather=0'

describe('withStartupOptions', () => {
  it('sends the service\'s options, and leaves a URL without options as it is', () => {
    const url = 'postgres://sw:p%40ss@db.example:5432/sw?sslmode=require'
    assert.deepEqual(withStartupOptions(url, SERVICE), { connectionString: url, options: SERVICE })
  })
  it('moves the URL\'s own options before the service\'s, so that pg sends both and the service\'s apply last', () => {
    const { connectionString, options } = withStartupOptions('postgres://sw:p%40ss@db.example/sw?options=-c%20lock_timeout%3D1234&sslmode=require', SERVICE)
    assert.equal(connectionString, 'postgres://sw:p%40ss@db.example/sw?sslmode=require')
    assert.equal(options, `-c lock_timeout=1234 ${SERVICE}`)
  })
  it('leaves a string it cannot read as a URL to pg, which names what is wrong with it', () => {
    assert.deepEqual(withStartupOptions('not a url', SERVICE), { connectionString: 'not a url', options: SERVICE })
  })
})
