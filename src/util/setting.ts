/**
 * What src/config.ts hands a module that parses its own settings: one variable read at a time, so the module names
 * its settings and their rules while config.ts stays the one reader of the environment and collector of problems.
 */

/** A setting's text parsed: its value, or a problem a person can act on. */
export type Parsed<T> = { value: T } | { problem: string }
export const ok = <T>(value: T): Parsed<T> => ({ value })
export const bad = (problem: string): { problem: string } => ({ problem })

/**
 * Reads one variable: its parsed value, or `fallback` when it is unset or blank, or when it is bad (the problem is
 * then recorded, naming the variable, and reported with every other one).
 */
export type ReadSetting = <T>(name: string, fallback: T, parse: (raw: string) => Parsed<T>) => T

export const parseBoolean = (raw: string): Parsed<boolean> => raw === 'true' ? ok(true) : raw === 'false' ? ok(false) : bad('must be true or false')

/**
 * A URL setting: the URL, or the problem when it is none (`notUrl`, which shows what is wanted) or its protocol is
 * not one of `protocols` (`wrongProtocol`). With `bare`, credentials, a query or a fragment are refused as well.
 */
export function parseUrlSetting(raw: string, protocols: readonly string[], notUrl: string, wrongProtocol: string, bare?: string): Parsed<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return bad(notUrl)
  }
  if (!protocols.includes(url.protocol)) return bad(wrongProtocol)
  if (bare !== undefined && (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')) return bad(bare)
  return ok(url)
}
