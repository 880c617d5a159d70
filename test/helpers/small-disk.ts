/**
 * A database on a small filesystem of its own, to fill up for real: a tmpfs mounted for the test
 * (root only). SQLite keeps its file there; PostgreSQL gets a tablespace there, on a server of its
 * own, and the test database lives in it.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { Engine } from '../../src/config.ts'
import { startTestPostgres, type TestPostgres } from '../../scripts/lib/postgres-server.ts'

export interface SmallDisk {
  /** DATABASE_URL of a database on the small filesystem. */
  url: string
  /** Gives the filesystem room again, without unmounting it. */
  grow(megabytes: number): void
  cleanup(): Promise<void>
}

/** Why the small-disk tests cannot run here, or null when they can. */
export function smallDiskUnavailable(): string | null {
  if (os.platform() !== 'linux') return 'skipped: mounting a tmpfs needs Linux'
  if (process.getuid?.() !== 0) return 'skipped: needs root to mount a small tmpfs'
  return null
}

export function mountTmpfs(megabytes: number): { dir: string; grow(megabytes: number): void; unmount(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-small-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0777`, 'tmpfs', dir])
  return {
    dir,
    grow: (mb) => { execFileSync('mount', ['-o', `remount,size=${mb}m`, dir]) },
    unmount: () => {
      execFileSync('umount', ['-l', dir])
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

export async function createSmallDiskDatabase(engine: Engine, megabytes: number): Promise<SmallDisk> {
  if (engine === 'sqlite') {
    const disk = mountTmpfs(megabytes)
    return {
      url: `file:${path.join(disk.dir, 'db.sqlite')}`,
      grow: (mb) => { disk.grow(mb) },
      cleanup: () => { disk.unmount(); return Promise.resolve() },
    }
  }
  // The database copies its template (about 8 MB) into the tablespace: room for it comes on top.
  const disk = mountTmpfs(megabytes + 10)
  let server: TestPostgres | null = null
  try {
    server = await startTestPostgres()
    const location = path.join(disk.dir, 'tablespace')
    fs.mkdirSync(location)
    // PostgreSQL insists on owning a tablespace's directory; as root it runs as the `postgres` user.
    const owner = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    fs.chownSync(location, owner, owner)
    const admin = new pg.Client(server.url)
    await admin.connect()
    try {
      await admin.query(`create tablespace small location '${location}'`)
      await admin.query('create database small tablespace small')
    } finally {
      await admin.end()
    }
    const url = new URL(server.url)
    url.pathname = '/small'
    const running = server
    return {
      url: url.toString(),
      grow: (mb) => { disk.grow(mb) },
      cleanup: async () => {
        await running.stop()
        disk.unmount()
      },
    }
  } catch (error) {
    await server?.stop()
    disk.unmount()
    throw error
  }
}
