import type { Engine } from '../../src/config.ts'
import { chosen } from './choose.ts'

/**
 * The engines the store and HTTP suites run on. SW_TEST_ENGINES narrows them (comma-separated).
 */
export const ALL_ENGINES: readonly Engine[] = ['sqlite', 'postgres']

export function testEngines(env: NodeJS.ProcessEnv = process.env): Engine[] {
  return chosen('SW_TEST_ENGINES', ALL_ENGINES, env)
}
