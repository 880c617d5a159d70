import fs from 'node:fs'
import type { Plugin } from 'esbuild'

/**
 * A fix to @rrweb/record 2.1.6, applied as the recorder is bundled, until rrweb ships it (rrweb-io/rrweb#1802, open).
 * To tell whether the page patched DOM prototypes (Zone.js and the like), rrweb checks that some accessors are native;
 * it lists querySelector and querySelectorAll, which are methods, among them, so the check always fails and every
 * recording starts by adding and removing an iframe to take clean prototypes from — ~25 ms of the recorder's start
 * in Chromium here, on any page. The fix moves them to the methods checked. The bundle fails to build if the text is
 * no longer there (rrweb changed): then see whether the fix landed upstream, and drop this.
 */
const REPLACEMENTS: readonly (readonly [string, string])[] = [
  ['  Element: ["shadowRoot", "querySelector", "querySelectorAll"],\n', '  Element: ["shadowRoot"],\n'],
  [
    'const testableMethods = {\n  Node: ["contains", "getRootNode"],\n  ShadowRoot: ["getSelection"],\n  Element: [],\n',
    'const testableMethods = {\n  Node: ["contains", "getRootNode"],\n  ShadowRoot: ["getSelection"],\n  Element: ["querySelector", "querySelectorAll"],\n',
  ],
]

/** Applies the fix to rrweb's source text; throws when it does not apply exactly once each. */
export function patchRrweb(source: string): string {
  let text = source
  for (const [from, to] of REPLACEMENTS) {
    const at = text.indexOf(from)
    if (at < 0 || text.indexOf(from, at + 1) >= 0) {
      throw new Error(`the rrweb untainted-prototype fix no longer applies (${JSON.stringify(from.trim().split('\n')[0])}): see src/assets/rrweb-patch.ts`)
    }
    text = text.slice(0, at) + to + text.slice(at + from.length)
  }
  return text
}

/** The esbuild plugin that applies patchRrweb to @rrweb/record's ES module build. */
export const rrwebPatch: Plugin = {
  name: 'rrweb-untainted-prototype-fix',
  setup(build) {
    build.onLoad({ filter: /[\\/]@rrweb[\\/]record[\\/]dist[\\/]record\.js$/ }, async (args) => ({
      contents: patchRrweb(await fs.promises.readFile(args.path, 'utf8')), loader: 'js',
    }))
  },
}
