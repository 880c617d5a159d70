/** Polls `check` every `every` ms until it returns a value, for at most `ms`. */
export async function eventually<T>(check: () => Promise<T | null | undefined>, what: string, ms = 15_000, every = 100): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== null && value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, every))
  }
}
