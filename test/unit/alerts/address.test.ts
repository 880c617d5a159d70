import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { addressRefusal, literalAddress } from '../../../src/alerts/address.ts'
import { checkWebhookUrl } from '../../../src/alerts/service.ts'
import { AppError } from '../../../src/errors.ts'

/** Every address of triage.md §5.4's table (and the other special ranges), by the words their refusal must use. */
const REFUSED: [RegExp, string[]][] = [
  [/cloud metadata/, ['169.254.169.254', 'fd00:ec2::254', 'fd00:ec2::1', '168.63.129.16', '100.100.100.200', '64:ff9b::a9fe:a9fe']],
  [/carrier-grade NAT/, ['100.64.0.1']], [/private/, ['10.1.2.3', '172.16.0.1', '192.168.1.1']], [/loopback/, ['127.0.0.1', '::1']],
  [/unspecified/, ['0.0.0.0', '::']], [/IPv4-mapped/, ['::ffff:127.0.0.1']], [/NAT64/, ['64:ff9b::a00:1']],
  [/reserved/, ['198.18.0.1', '192.0.0.192']], [/multicast/, ['224.0.0.1']], [/broadcast/, ['255.255.255.255']],
  [/link-local/, ['169.254.1.1', 'fe80::1']], [/unique-local/, ['fc00::5']],
]

describe('webhook address policy', () => {
  it('refuses every range of triage §5.4 by default, naming it', () => {
    for (const [why, address] of REFUSED.flatMap(([words, addresses]) => addresses.map((a) => [words, a] as const))) {
      const refusal = addressRefusal(address, false)
      assert.ok(refusal !== null, `${address} must be refused`)
      assert.match(refusal, why, address)
      assert.ok(refusal.startsWith(address), 'the reason names the address')
    }
  })

  it('allows public addresses of both families', () => {
    for (const address of ['1.1.1.1', '93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      assert.equal(addressRefusal(address, false), null, address)
    }
  })

  it('with WEBHOOK_ALLOW_PRIVATE allows LAN and loopback, but never the unspecified, link-local or cloud metadata addresses', () => {
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', '172.16.0.1', 'fd12:3456::1', '100.64.0.1']) {
      assert.equal(addressRefusal(address, true), null, address)
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe', '0.0.0.0', '::']) {
      assert.notEqual(addressRefusal(address, true), null, address)
    }
    // Link-local (169.254.0.0/16, fe80::/10), AWS's IPv6 metadata block and Azure's wire server, in any spelling.
    for (const address of ['169.254.0.1', '169.254.255.254', 'fe80::1', 'febf:ffff::1', 'fd00:ec2::1', 'fd00:ec2:ffff::1',
      '168.63.129.16', '::ffff:168.63.129.16', '64:ff9b::a83f:8110', '::ffff:169.254.1.1']) {
      assert.match(addressRefusal(address, true) ?? '', /link-local or cloud metadata address; .*even with WEBHOOK_ALLOW_PRIVATE=true/, address)
    }
    for (const address of ['168.63.129.15', '168.63.129.17', 'fd00:ec3::1', 'fec0::1']) assert.equal(addressRefusal(address, true), null, address)
  })

  it('reads the IP address a URL host names literally, and nothing from a host name', () => {
    assert.equal(literalAddress(new URL('http://127.0.0.1:9/').hostname), '127.0.0.1')
    assert.equal(literalAddress(new URL('http://[::ffff:127.0.0.1]/').hostname), '::ffff:7f00:1')
    // WHATWG URLs normalize the other IPv4 spellings to dotted quads, so they are caught as well.
    assert.equal(literalAddress(new URL('http://0x7f000001/').hostname), '127.0.0.1')
    assert.equal(literalAddress(new URL('http://2130706433/').hostname), '127.0.0.1')
    assert.equal(literalAddress(new URL('https://hooks.slack.com/x').hostname), null)
  })
})

describe('webhook URL check on adding', () => {
  const refused = (url: string, allowPrivate = false) => {
    try {
      checkWebhookUrl(url, allowPrivate)
    } catch (error) {
      assert.ok(error instanceof AppError)
      assert.equal(error.code, 'invalid_body')
      assert.equal(error.parameter, 'url')
      return error.message
    }
    return assert.fail(`${url} should be refused`)
  }

  it('refuses what is not an http(s) URL, credentials, and non-public literal or localhost hosts, naming the problem', () => {
    assert.match(refused('hooks.slack.com/services/x'), /absolute http:\/\/ or https:\/\/ URL/)
    assert.match(refused('ftp://example.com/hook'), /must use http or https, not ftp/)
    assert.match(refused('file:///etc/passwd'), /not file/)
    assert.match(refused('https://user:secret@example.com/hook'), /credentials/)
    assert.match(refused('http://127.0.0.1:8080/'), /127\.0\.0\.1 is a loopback address/)
    assert.match(refused('http://[::ffff:169.254.169.254]/'), /cloud metadata/)
    assert.match(refused('http://169.254.169.254/latest/meta-data/', true), /cloud metadata/)
    for (const host of ['169.254.10.10', '[fe80::1]', '[fd00:ec2::254]', '168.63.129.16', '[::ffff:168.63.129.16]']) {
      assert.match(refused(`http://${host}/hook`, true), /link-local or cloud metadata address/, host)
    }
    assert.match(refused('http://localhost:9000/'), /localhost is this machine/)
    assert.match(refused('http://api.localhost/'), /this machine/)
    assert.match(refused(`https://example.com/${'a'.repeat(2048)}`), /at most 2048 characters/)
  })

  it('accepts public URLs as they are, and private ones with WEBHOOK_ALLOW_PRIVATE', () => {
    assert.equal(checkWebhookUrl('https://hooks.slack.com/services/T0/B0/xyz', false), 'https://hooks.slack.com/services/T0/B0/xyz')
    assert.equal(checkWebhookUrl('https://discord.com/api/webhooks/1/abc', false), 'https://discord.com/api/webhooks/1/abc')
    assert.equal(checkWebhookUrl('http://127.0.0.1:9000/hook', true), 'http://127.0.0.1:9000/hook')
    assert.equal(checkWebhookUrl('http://localhost:9000/hook', true), 'http://localhost:9000/hook')
  })
})
