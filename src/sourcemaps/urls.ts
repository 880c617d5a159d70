/**
 * A script URL as maps are stored and frames looked up: query and fragment dropped, and the URL as
 * WHATWG parsing writes it (lowercase host, default port dropped, dots resolved), so the URL a browser
 * prints in a stack and the one an upload names compare equal. `path` is the `~/path` form, which
 * matches that path on any scheme and host; null when the URL has no host. Null for a text that is no
 * URL at all; a stored `~/path` comes back as itself.
 *
 * @example
 * scriptUrl('https://Shop.example:443/static/app.js?v=3') // { url: 'https://shop.example/static/app.js', path: '~/static/app.js' }
 */
export function scriptUrl(raw: string): { url: string; path: string | null } | null {
  const bare = raw.trim().replace(/[?#].*$/s, '')
  if (bare.startsWith('~/')) return bare.length > 2 ? { url: bare, path: bare } : null
  let parsed: URL
  try {
    parsed = new URL(bare)
  } catch {
    return null
  }
  const url = `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  return { url, path: parsed.host === '' ? null : `~${parsed.pathname}` }
}

/**
 * The stored URLs whose map applies to a script a frame names, best first: its exact URL, then the
 * `~/path` with its path (any scheme and host), as Sentry's `~/` artifact names match.
 *
 * @example
 * mapUrlsFor('https://shop.example/static/app.js?v=3#x') // ['https://shop.example/static/app.js', '~/static/app.js']
 */
export function mapUrlsFor(file: string): string[] {
  const script = scriptUrl(file)
  if (script === null) return []
  return script.path === null || script.path === script.url ? [script.url] : [script.url, script.path]
}
