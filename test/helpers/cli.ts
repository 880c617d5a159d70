import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import path from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { main } from '../../src/cli.ts'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const BIN = path.join(ROOT, 'bin', 'sessionwatch.mjs')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs a CLI command in this process: `main`, which the `sessionwatch` binary runs, with the test's environment and
 * streams. A process start costs a second, and these tests run a hundred commands; cliProcess runs the binary.
 */
export async function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  const collect = () => {
    const stream = new PassThrough()
    let text = ''
    stream.on('data', (d: Buffer) => { text += d.toString() })
    return { stream, text: () => text }
  }
  const out = collect()
  const err = collect()
  const code = await main(args, { HOME: process.env.HOME ?? '', ...env }, { stdin: Readable.from([stdin ?? '']), stdout: out.stream, stderr: err.stream })
  return { code, stdout: out.text(), stderr: err.text() }
}

/** Runs the real CLI in a child process, as a user would. */
export function cliProcess(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
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
