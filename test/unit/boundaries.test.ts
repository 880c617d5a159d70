/**
 * Which code may import which: browser code never pulls the server into a page, and common/ stays pure so both
 * sides can bundle it. Checked on what TypeScript parses (never text in strings or comments), with each relative
 * import resolved to the folder it lands in.
 */
import assert from 'node:assert/strict'
import { builtinModules } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'

const root = path.resolve(import.meta.dirname, '..', '..')

interface Import { spec: string; typeOnly: boolean }

/** A file's static imports, `export … from` and dynamic `import()`s; `typeOnly` when the build erases it (`import type`). */
function importsOf(file: string, text: string): Import[] {
  const found: Import[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      // verbatimModuleSyntax keeps `import { type A } from 'x'` as `import 'x'`: only `import type` is erased.
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword : node.isTypeOnly
      found.push({ spec: node.moduleSpecifier.text, typeOnly })
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0]
      if (arg && ts.isStringLiteral(arg)) found.push({ spec: arg.text, typeOnly: false })
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

const isNode = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0] ?? '')
/** The top folder, or the browser app (`browser/sdk`), that a repository path belongs to. */
const area = (file: string) => {
  const parts = path.relative(root, file).split(path.sep)
  return parts[0] === 'browser' ? parts.slice(0, 2).join('/') : (parts[0] ?? '')
}

/**
 * Why `file` may not import `spec`, or null when it may.
 * - common/ imports only common/: no packages, no Node, nothing of the server or the browser apps.
 * - A browser app imports itself, common/ and npm packages, never Node; of the server only types (`import type`),
 *   which the build erases: the dashboard's wire types are the service's own.
 */
function refusal(file: string, { spec, typeOnly }: Import): string | null {
  const from = area(file)
  const relative = spec.startsWith('.')
  const to = relative ? area(path.resolve(path.dirname(file), spec)) : null
  if (from === 'common') return to === 'common' ? null : 'common/ imports only common/'
  if (!from.startsWith('browser/')) return null
  if (isNode(spec)) return 'browser code cannot use Node modules'
  if (to === null || to === from || to === 'common') return null
  if (to === 'src' && typeOnly) return null
  return to === 'src' ? 'browser code imports only types from src/ (import type)' : `browser code imports only its own folder and common/, not ${to}/`
}

const sources = (dir: string) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts')).map((f) => path.join(root, dir, f))

describe('import boundaries of browser/ and common/', () => {
  it('holds for every file in the tree', () => {
    const files = [...sources('browser'), ...sources('common')]
    assert.ok(files.length > 10, 'the scan finds the browser and common files')
    const broken = files.flatMap((file) => importsOf(file, fs.readFileSync(file, 'utf8'))
      .map((imp) => ({ file: path.relative(root, file), spec: imp.spec, why: refusal(file, imp) })))
      .filter((b) => b.why !== null)
    assert.deepEqual(broken, [])
  })

  it('refuses the imports that would bundle the server or leave common/ impure', () => {
    const at = (p: string) => path.join(root, p)
    const check = (file: string, source: string) => importsOf(at(file), source).map((imp) => refusal(at(file), imp))
    assert.deepEqual(check('browser/sdk/capture.ts', "import { maskCards } from '../../src/events/text.ts'"), ['browser code imports only types from src/ (import type)'])
    assert.deepEqual(check('browser/dashboard/api.ts', "export type { X } from '../../src/sessions/views.ts'\nimport type { Y } from '../../src/a.ts'"), [null, null])
    assert.deepEqual(check('browser/dashboard/views/a.ts', "import { type X } from '../../../src/projects/service.ts'"), ['browser code imports only types from src/ (import type)'])
    assert.deepEqual(check('browser/dashboard/main.ts', "import '../sdk/queue.ts'"), ['browser code imports only its own folder and common/, not browser/sdk/'])
    assert.deepEqual(check('browser/sdk/index.ts', "const z = await import('node:zlib')"), ['browser code cannot use Node modules'])
    assert.deepEqual(check('browser/sdk/index.ts', "import '../../common/text.ts'\nimport 'fflate'"), [null, null])
    assert.deepEqual(check('common/text.ts', "import './other.ts'"), [null])
    for (const spec of ['../src/config.ts', '../browser/sdk/dom.ts', 'fflate', 'node:crypto']) {
      assert.deepEqual(check('common/text.ts', `import '${spec}'`), ['common/ imports only common/'], spec)
    }
  })
})
