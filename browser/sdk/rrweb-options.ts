import type { record } from '@rrweb/record'

/**
 * What the recorder asks of rrweb, apart from where events go: privacy by default — every input value masked
 * (password values never captured, not even their length), `sw-block` / `data-sw-block` replaced by an empty box,
 * `sw-mask` / `data-sw-mask` text masked, `sw-ignore` input not recorded — scripts, comments and most of `<head>` left
 * out, no canvas, fonts or inline images, and pointer and scroll sampled. Its own module, so the recorder benchmark
 * measures rrweb with exactly these options and nothing of ours.
 */
export const RRWEB_OPTIONS = {
  maskAllInputs: true,
  maskInputFn: (text, el) => (isPassword(el) ? '' : '*'.repeat(text.length)),
  blockClass: 'sw-block',
  blockSelector: '[data-sw-block]',
  maskTextClass: 'sw-mask',
  maskTextSelector: '[data-sw-mask]',
  ignoreClass: 'sw-ignore',
  slimDOMOptions: 'all',
  recordCanvas: false,
  collectFonts: false,
  inlineImages: false,
  sampling: { mousemove: 50, scroll: 150, input: 'last' },
  errorHandler: () => true,
} satisfies Omit<NonNullable<Parameters<typeof record>[0]>, 'emit'>

const isPassword = (el: HTMLElement | null) => el instanceof HTMLInputElement && el.type.toLowerCase() === 'password'
