/**
 * A real minified bundle and its source map, built with the project's esbuild as a site's build would,
 * and the stack V8 prints when the bundle fails — served from `url`, as a browser would have it.
 */
import vm from 'node:vm'
import { build } from 'esbuild'

/** The original source: `applyCoupon` fails reading `user.coupon.code` when called from `checkout` via `run`. */
export const CHECKOUT_SOURCE = `export function checkout(cart, user) {
  const total = cart.items.reduce((sum, item) => sum + item.price, 0)
  if (total > 100) {
    return applyCoupon(user, total)
  }
  return total
}

function applyCoupon(user, total) {
  const code = user.coupon.code
  return total - code.length
}

globalThis.run = () => checkout({ items: [{ price: 120 }] }, {})
`

export interface Bundle {
  /** The minified JavaScript. */
  js: string
  /** The external source map esbuild wrote for it. */
  map: Buffer
  /** The stack of the error the bundle throws when `run()` is called, its frames naming `url` as the script. */
  stack(url: string): string
}

/** Minifies `source` (file name `sourcefile` in the map) into one IIFE bundle with an external map. */
export async function buildBundle(source = CHECKOUT_SOURCE, sourcefile = 'src/checkout.js'): Promise<Bundle> {
  const result = await build({
    stdin: { contents: source, sourcefile, loader: 'js' }, outfile: 'static/app.js', format: 'iife',
    minify: true, sourcemap: 'external', write: false, logLevel: 'silent',
  })
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? ''
  const map = Buffer.from(result.outputFiles.find((f) => f.path.endsWith('.map'))?.contents ?? [])
  return {
    js,
    map,
    stack(url) {
      const context = vm.createContext({})
      vm.runInContext(js, context, { filename: url })
      try {
        vm.runInContext('run()', context)
      } catch (error) {
        // The message and the bundle's own frames: Node adds the failing source line above, and this helper's frames below.
        const lines = ((error as Error).stack ?? '').split('\n')
        return lines.filter((line) => /^\w*Error: /.test(line) || (/^\s+at /.test(line) && line.includes(url))).join('\n')
      }
      throw new Error('the bundle did not fail')
    },
  }
}
