/**
 * The values of `all` an environment variable names (comma-separated), all of them when it is unset or empty: how
 * SW_TEST_ENGINES and SW_TEST_STORES narrow the suites. A name not in `all` is an error, not a silent skip.
 */
export function chosen<T extends string>(variable: string, all: readonly T[], env: NodeJS.ProcessEnv): T[] {
  const wanted = env[variable]?.split(',').map((s) => s.trim()).filter(Boolean)
  if (!wanted || wanted.length === 0) return [...all]
  const unknown = wanted.filter((w) => !(all as readonly string[]).includes(w))
  if (unknown.length > 0) throw new Error(`${variable} names unknown values: ${unknown.join(', ')} (known: ${all.join(', ')})`)
  return wanted as T[]
}
