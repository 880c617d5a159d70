import Bowser from 'bowser'
import { LRUCache } from 'lru-cache'

export interface AgentFamilies {
  browser: string | null
  os: string | null
}

/** Distinct User-Agent strings remembered: a site's visitors share a few hundred, and parsing one costs ~30 µs. */
const PARSED = new LRUCache<string, AgentFamilies>({ max: 2000 })

/**
 * The browser and OS family names of a User-Agent ("Chrome", "Microsoft Edge", "iOS", "Windows"), as bowser
 * names them — a maintained parser (MIT) rather than our own regexes, which knew five browsers. Null when
 * the string names none.
 */
export function userAgentFamilies(userAgent: string): AgentFamilies {
  let families = PARSED.get(userAgent)
  if (!families) {
    const parsed = Bowser.parse(userAgent)
    families = { browser: parsed.browser.name || null, os: parsed.os.name || null }
    PARSED.set(userAgent, families)
  }
  return families
}

const canonical = (names: Iterable<string>) => new Map([...names].map((name) => [name.toLowerCase(), name]))
const BROWSERS = canonical(Object.values(Bowser.BROWSER_MAP))
const SYSTEMS = canonical(Object.values(Bowser.OS_MAP))

/** A family name as stored, whatever its case (`chrome` → `Chrome`); a name bowser does not know is kept as given. */
export const browserFamily = (name: string): string => BROWSERS.get(name.toLowerCase()) ?? name
export const osFamily = (name: string): string => SYSTEMS.get(name.toLowerCase()) ?? name
