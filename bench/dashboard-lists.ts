/**
 * `node --import tsx bench/dashboard-lists.ts [DATABASE_URL]`: service time of the dashboard's
 * sessions list — unfiltered, errors-only, with-recording — on the largest project of a database
 * (default: the SQLite dataset `npm run bench` generates). Median of 7 runs each, after the
 * migrations (a first run on the dataset builds the partial indexes).
 */
import { loadConfig } from '../src/config.ts'
import { dashboardSessions } from '../src/dashboard/service.ts'
import { openDatabase } from '../src/database.ts'
import { listProjects, getProject } from '../src/projects/service.ts'
import { countSessions } from '../src/search/index.ts'
import { ROOT } from './lib/service.ts'

const url = process.argv[2] ?? `file:${ROOT}/bench/data/bench.sqlite`
const database = await openDatabase(loadConfig({ DATABASE_URL: url }).database)
const db = database.db
try {
  const projects = await listProjects(db)
  const sizes = await Promise.all(projects.map((p) => countSessions(db, p.id, { cutoff: 0 })))
  const largest = projects[sizes.indexOf(Math.max(...sizes))]
  if (!largest) throw new Error(`no project in ${url}: run npm run bench first`)
  const project = await getProject(db, largest.id)
  console.log(`${project.id}: ${Math.max(...sizes)} sessions`)
  const now = Date.now()
  for (const [label, filters] of [['unfiltered', {}], ['errors only', { errors: 'true' }], ['with a recording', { recording: 'true' }]] as const) {
    const runs: number[] = []
    let total = ''
    for (let i = 0; i < 7; i++) {
      const start = performance.now()
      const page = await dashboardSessions(db, project, { limit: 50, offset: 0, ...filters }, now)
      runs.push(performance.now() - start)
      total = String(page.total)
    }
    runs.sort((a, b) => a - b)
    console.log(`${label.padEnd(18)} median ${(runs[3] ?? 0).toFixed(1)} ms   total ${total}`)
  }
} finally {
  await database.close()
}
