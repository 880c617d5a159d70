import { gzipSync } from 'node:zlib'

/**
 * Size budgets, in gzipped bytes, of the scripts the SDK puts into a visitor's page: every site pays for them on
 * every visit. docs/sdk.md quotes them; `npm run size` (run by CI) fails when a script grows past its budget.
 */
export const SIZE_BUDGETS = { 'sdk.js': 8 * 1024, 'recorder.js': 40 * 1024, 'vitals.js': 7 * 1024 } as const

export type BudgetedScript = keyof typeof SIZE_BUDGETS

/** A script's size as a server sends it compressed: gzip at its best level, so the figure does not depend on a setting. */
export const gzipSize = (text: string): number => gzipSync(text, { level: 9 }).length

const bytes = (n: number) => n.toLocaleString('en-US')

/**
 * One line per script and whether any is over its budget.
 *
 * @example
 * checkSizes({ 'sdk.js': 4209, 'recorder.js': 28160, 'vitals.js': 6100 }).lines[0] // 'sdk.js 4,209 B gzipped (budget 8,192)'
 */
export function checkSizes(sizes: Record<BudgetedScript, number>): { lines: string[]; over: boolean } {
  const names = Object.keys(SIZE_BUDGETS) as BudgetedScript[]
  const lines = names.map((name) => {
    const size = sizes[name]
    const budget = SIZE_BUDGETS[name]
    return `${name} ${bytes(size)} B gzipped (budget ${bytes(budget)})${size > budget ? `: OVER BUDGET by ${bytes(size - budget)} B` : ''}`
  })
  return { lines, over: names.some((name) => sizes[name] > SIZE_BUDGETS[name]) }
}
