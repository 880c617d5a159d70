/** Events per benchmark batch, and batches per visit (a visit is 100 events). */
export const EVENTS_PER_BATCH = 20
const BATCHES_PER_SESSION = 5

/**
 * An error-heavy batch (issue 12's grouping cost): 20 errors of 5 bugs — 10 ERRORs whose messages differ
 * by ids and numbers, with stacks of hashed chunks, and 10 failed requests to id-bearing URLs — so every
 * event is fingerprinted and counted into an issue that already exists after the first batches.
 */
export function errorBatchFactory(prefix: string): () => string {
  let n = 0
  return () => {
    const i = n++
    const now = Date.now()
    const events = [
      ...Array.from({ length: 10 }, (_, k) => ({
        type: 'ERROR', message: `Uncaught TypeError: Order ${i * 10 + k} of user ${k}@shop.example has no items (bug ${k % 3})`,
        stack: `TypeError: Order ${i} has no items\n    at u (https://shop.example/static/app-7RZI5MVM.js:1:${4000 + (k % 3)})\n`
          + '    at Object.checkout (https://shop.example/static/app-7RZI5MVM.js:1:9120)\n    at HTMLButtonElement.<anonymous> (https://shop.example/static/vendor-Db-Q2xY9.js:2:311)',
        url: `https://shop.example/cart/${i}`, createdAt: now - 900 + k,
      })),
      ...Array.from({ length: 10 }, (_, k) => ({
        type: 'HTTP_ERROR', url: `https://shop.example/api/orders/${i * 10 + k}/items/${k % 2 === 0 ? 'a1b2c3d4e5' : 'f00dbeef42'}`,
        method: k % 2 === 0 ? 'POST' : 'GET', statusCode: 500, durationMs: 120, createdAt: now - 500 + k,
      })),
    ]
    return JSON.stringify({ sessionKey: `${prefix}-${Math.floor(i / BATCHES_PER_SESSION)}-errors`, batchId: `e${i}`, sentAt: now, events })
  }
}

/**
 * A realistic SDK batch: navigation and the page's vitals, clicks (one batch in four a rage click, one in five a dead
 * click), inputs, two failed requests, a slow one and an error on the page.
 */
export function batchFactory(prefix: string): () => string {
  let n = 0
  return () => {
    const i = n++
    const now = Date.now()
    const page = `https://shop.example/p/${i % 97}?utm_source=bench`
    const frustration = i % 4 === 0 ? { type: 'RAGE_CLICK', selector: 'button.buy', text: 'Add to cart', count: 4, url: page }
      : i % 5 === 0 ? { type: 'DEAD_CLICK', selector: 'span.price', text: '$12', url: page } : { type: 'CLICK', message: 'a.more "More"' }
    const events = [
      { type: 'NAVIGATION', url: page, createdAt: now - 900 },
      { type: 'WEB_VITAL', name: 'LCP', value: 900 + ((i * 37) % 3600), url: page, element: 'img.hero', createdAt: now - 890 },
      { type: 'WEB_VITAL', name: i % 2 === 0 ? 'INP' : 'CLS', value: i % 2 === 0 ? 40 + ((i * 13) % 500) : ((i * 7) % 30) / 100, url: page, createdAt: now - 880 },
      ...Array.from({ length: 9 }, (_, k) => ({ type: 'CLICK', message: `button.buy-${k} "Add to cart"`, createdAt: now - 800 + k })),
      { ...frustration, createdAt: now - 700 },
      ...Array.from({ length: 3 }, (_, k) => ({ type: 'INPUT', message: `input[name=field${k}]`, createdAt: now - 500 + k })),
      { type: 'HTTP_ERROR', url: 'https://shop.example/api/cart', method: 'POST', statusCode: 500, durationMs: 231.5,
        reqBody: '{"sku":"A-1","qty":2,"password":"hunter2"}', resBody: '{"error":"internal"}', createdAt: now - 300 },
      { type: 'HTTP_ERROR', url: 'https://shop.example/api/user', method: 'GET', statusCode: 404, durationMs: 40, createdAt: now - 250 },
      { type: 'SLOW_REQUEST', url: 'https://cdn.example/app.js', durationMs: 3400, createdAt: now - 200 },
      { type: 'ERROR', message: "TypeError: Cannot read properties of undefined (reading 'price')", url: page,
        stack: 'TypeError: Cannot read properties of undefined\n    at renderCart (app.js:120:15)\n    at onClick (app.js:88:3)'.repeat(3), createdAt: now - 100 },
    ]
    return JSON.stringify({ sessionKey: `${prefix}-${Math.floor(i / BATCHES_PER_SESSION)}-session`, batchId: `b${i}`, sentAt: now, events })
  }
}
