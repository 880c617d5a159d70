import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './service.ts'

/** A checkout a benchmark runs: this one ("branch"), or a worktree of the commit it is compared with. */
export interface Tree {
  name: string
  root: string
  /** The commit, for the results file. */
  commit: string
  /** Removes the worktree (nothing for this checkout). */
  cleanup?: () => void
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/**
 * The trees to compare: a worktree of `against` (named after it, sharing this checkout's node_modules), then this
 * checkout as "branch" — or this checkout alone when it is that very commit with no changes, when `against` is
 * "none", or when git cannot resolve it (say, a clone without that branch), which `log` says.
 */
export function compareTrees(against: string, log: (line: string) => void, prefix = 'sw-bench-'): Tree[] {
  if (against === 'none') return [{ name: 'branch', root: ROOT, commit: 'this checkout' }]
  let head: string
  let base: string
  try {
    head = git('rev-parse', 'HEAD')
    base = git('rev-parse', '--verify', `${against}^{commit}`)
  } catch {
    log(`--against ${against}: not a commit here; measuring this checkout only`)
    return [{ name: 'branch', root: ROOT, commit: 'unknown' }]
  }
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''
  if (base === head && !dirty) return [{ name: `${against} = branch`, root: ROOT, commit: head }]
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  git('worktree', 'add', '--detach', dir, base)
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  return [
    { name: against, root: dir, commit: base, cleanup: () => { git('worktree', 'remove', '--force', dir) } },
    { name: 'branch', root: ROOT, commit: `${head}${dirty ? ' + uncommitted changes' : ''}` },
  ]
}
