import fs from 'node:fs'

/** Clock ticks per second for /proc/<pid>/stat times; 100 on Linux everywhere we run. */
const TICKS = 100

/** CPU seconds (user + system) used so far by processes, read from /proc (Linux). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // The process ended; its time is gone with it.
    }
  }
  return ticks / TICKS
}

/** Every running process whose command is `name` (e.g. all PostgreSQL backends). */
export function pidsNamed(name: string): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name
    } catch {
      return false
    }
  })
}

/** This process's own CPU seconds (the load generator). */
export const selfCpuSeconds = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
