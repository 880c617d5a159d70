/**
 * `npm run size`: builds the SDK and its chunks (the recorder, the vitals) exactly as the service serves them, prints their gzipped sizes
 * against their budgets (src/assets/budgets.ts), and exits non-zero when one is over. CI runs it.
 */
import { buildSdk } from '../src/assets/bundle.ts'
import { checkSizes, gzipSize } from '../src/assets/budgets.ts'

const sdk = await buildSdk()
const report = checkSizes({ 'sdk.js': gzipSize(sdk.script), 'recorder.js': gzipSize(sdk.recorder), 'vitals.js': gzipSize(sdk.vitals) })
for (const line of report.lines) console.log(line)
if (report.over) {
  console.error('a browser script is over its size budget: make it smaller, or raise the budget in src/assets/budgets.ts and docs/sdk.md')
  process.exit(1)
}
