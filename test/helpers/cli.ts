import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const BIN = path.join(ROOT, 'bin', 'sessionwatch.mjs')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real CLI in a child process, as a user would. */
export function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => { resolve({ code, stdout, stderr }) })
    child.stdin.end(stdin ?? '')
  })
}

export interface Started { child: ChildProcessWithoutNullStreams; output: () => string; waitFor: (re: RegExp) => Promise<RegExpExecArray> }

/** Starts `sessionwatch serve` as `npm start` does and collects what it prints. */
export function startServer(env: Record<string, string>): Started {
  return startNode([BIN, 'serve'], env)
}

/** Starts a Node script in a child process and collects what it prints (stdout and stderr). */
export function startNode(args: string[], env: Record<string, string>): Started {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  child.stdout.on('data', (d: Buffer) => { output += d.toString() })
  child.stderr.on('data', (d: Buffer) => { output += d.toString() })
  const waitFor = (re: RegExp) => new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const m = re.exec(output)
      if (m) { clearInterval(timer); resolve(m) }
    }
    const timer = setInterval(check, 50)
    child.once('exit', (code) => { clearInterval(timer); reject(new Error(`${args.join(' ')} exited (${String(code)}) before printing ${String(re)}:\n${output}`)) })
  })
  return { child, output: () => output, waitFor }
}
