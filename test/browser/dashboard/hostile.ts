/** Script-injection payloads planted in every visitor-controlled field; each would bump window.__pwned if it ran. */
export const PAYLOAD_IMG = '<img src=x onerror="(window.top||window).__pwned=1">'
export const PAYLOAD_SCRIPT = '<script>(window.top||window).__pwned=2</script>'
export const PAYLOAD_SVG = '<svg onload="(window.top||window).__pwned=3">'

/** A JSON literal safe inside an inline script: "</script>" in it would end the script early. */
const js = (value: unknown) => JSON.stringify(value).replaceAll('</', '<\\/')

/**
 * A shop page whose text, live elements (an img with onerror, an svg with onload, a javascript: link, an iframe
 * with a script), error, request body, report and tags all carry the payloads. The payloads do run in the visited page itself
 * (it is the visitor's own page); they must not run in the dashboard or its replay.
 */
export const hostilePage = (ingestKey: string): string => `<!doctype html><html><head><meta charset="utf-8"><title>Hostile shop</title></head><body>
<h1 id="title">Visible heading</h1>
<p id="bait">${PAYLOAD_IMG.replaceAll('<', '&lt;')} ${PAYLOAD_SCRIPT.replaceAll('<', '&lt;')}</p>
<div id="live-dom">${PAYLOAD_IMG}${PAYLOAD_SVG}</svg><a id="js-link" href="javascript:(window.top||window).__pwned=4">a link</a>
<iframe srcdoc="${PAYLOAD_SCRIPT.replaceAll('"', '&quot;')}"></iframe></div>
<button id="boom" type="button">Break it</button>
<script src="/sdk.js"></script>
<script>
  Sessionwatch.init({ ingestKey: ${JSON.stringify(ingestKey)}, recordCheckoutMs: 300, flushIntervalMs: 300 })
  document.getElementById('boom').addEventListener('click', () => {
    document.getElementById('title').textContent = 'Broken heading'
    fetch('/demo/fail', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: ${js(PAYLOAD_SCRIPT)}, password: 'hunter2' }) })
    Sessionwatch.report(${js(PAYLOAD_SVG)})
    // Later than the heading change, so the replay at the error shows it whatever the clock noise.
    setTimeout(() => { throw new Error(${js(`Checkout failed ${PAYLOAD_IMG}`)}) }, 400)
  })
</script>
</body></html>`

/**
 * A page URL and a clicked element's selector and text as a hostile page could send them with a rage click, a dead
 * click or a vital: the Pages tab, the list row and the visit page must show them as text.
 */
export const HOSTILE_PAGE_URL = `https://shop.example/${PAYLOAD_IMG}`
export const HOSTILE_SELECTOR = `button${PAYLOAD_SVG}`
