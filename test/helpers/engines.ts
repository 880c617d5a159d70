import type { Engine } from '../../src/config.ts'

/**
 * The engines the store and HTTP suites run on. SW_TEST_ENGINES narrows them (comma-separated).
 */
export const ALL_ENGINES: readonly Engine[] = ['sqlite', 'postgres']

export function testEngines(env: NodeJS.ProcessEnv = process.env): Engine[] {
  const wanted = env.SW_TEST_ENGINES?.split(',').map((s) => s.trim()).filter(Boolean)
  if (!wanted || wanted.length === 0) return [...ALL_ENGINES]
  const unknown = wanted.filter((w) => !(ALL_ENGINES as readonly string[]).includes(w))
  if (unknown.length > 0) throw new Error(`SW_TEST_ENGINES names unknown engines: ${unknown.join(', ')}`)
  return wanted as Engine[]
}
