import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { holdVitals } from '../../../../browser/sdk/vitals-hold.ts'
import { PAGE, sdkInNode, serverAccepts } from '../../../helpers/sdk.ts'

type Held = Record<string, unknown>

describe('SDK Core Web Vitals, held until the page is hidden', () => {
  it('holds each metric\'s latest value, releases it once per page view, and again only after a back/forward restore', () => {
    const events: Held[] = []
    const vitals = holdVitals((e) => { events.push(e) }, () => PAGE)
    vitals.report({ name: 'CLS', value: 0.05, rating: 'good', element: 'div.banner' })
    vitals.report({ name: 'CLS', value: 0.31, rating: 'poor', element: `main>${'div.card>'.repeat(40)}img` })
    vitals.report({ name: 'TTFB', value: 120.5, rating: 'good' })
    assert.deepEqual(events.map((e) => e.type), [], 'nothing before the page is hidden')
    vitals.release()
    assert.deepEqual(events.map((e) => [e.type, e.name, e.value, e.rating]), [['WEB_VITAL', 'CLS', 0.31, 'poor'], ['WEB_VITAL', 'TTFB', 120.5, 'good']])
    assert.equal((events[0]?.element as string).length, 256, 'the element cut to the service\'s limit')
    assert.equal(events[1]?.element, undefined, 'no element where the metric names none')
    assert.equal(events[0]?.url, PAGE)

    vitals.report({ name: 'CLS', value: 0.5, rating: 'poor' })
    vitals.release()
    assert.equal(events.length, 2, 'a page back from hidden keeps its first report')
    vitals.restore()
    vitals.report({ name: 'CLS', value: 0.01, rating: 'good' })
    vitals.release()
    assert.deepEqual(events.slice(2).map((e) => [e.name, e.value]), [['CLS', 0.01]], 'a restored page is a new page view')
  })

  it('the hidden page\'s beacon carries what the vitals reported just before: flushOnHide releases them first', () => {
    const sdk = sdkInNode()
    sdk.init({})
    const vitals = holdVitals(sdk.core().record, () => PAGE)
    sdk.core().beforeHide(vitals.release)
    vitals.report({ name: 'LCP', value: 2400, rating: 'good', element: 'img.hero' })
    // web-vitals reports INP from its own listener for the hidden page, which runs before the SDK's.
    vitals.report({ name: 'INP', value: 250, rating: 'needs-improvement', element: 'button#buy' })
    sdk.core().flushOnHide()
    const sent = sdk.transport.beacons.flatMap((b) => b.events) as unknown as Held[]
    assert.deepEqual(sent.map((e) => [e.type, e.name, e.value, e.rating, e.element]), [
      ['WEB_VITAL', 'LCP', 2400, 'good', 'img.hero'], ['WEB_VITAL', 'INP', 250, 'needs-improvement', 'button#buy'],
    ])
    assert.ok(!sent.some((e) => 'message' in e), 'the service writes the caption')
    const batch = sdk.transport.beacons[0]
    assert.ok(batch)
    const check = serverAccepts(batch)
    assert.ok(check.valid, JSON.stringify(check.errors))
    sdk.core().flushOnHide()
    assert.equal(sdk.transport.beacons.length, 1, 'nothing twice')
  })

  it('without consent the vitals are held like every event, and leave with the consent', async () => {
    const sdk = sdkInNode()
    sdk.init({ consent: false })
    const vitals = holdVitals(sdk.core().record, () => PAGE)
    sdk.core().beforeHide(vitals.release)
    vitals.report({ name: 'FCP', value: 800, rating: 'good' })
    sdk.core().flushOnHide()
    assert.equal(sdk.transport.beacons.length + sdk.transport.posts.length, 0)
    sdk.consent(true)
    await sdk.core().flush()
    assert.deepEqual(sdk.transport.posts.flatMap((b) => b.events).map((e) => e.type), ['WEB_VITAL'])
  })
})
