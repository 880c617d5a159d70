import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { emailAllowed, roleFromClaim } from '../../../src/sso/rules.ts'

describe('emailAllowed', () => {
  const allowed = ['example.com', 'Example.ORG']

  it('allows an address of a listed domain, in any case', () => {
    assert.equal(emailAllowed('ana@example.com', allowed), true)
    assert.equal(emailAllowed('Ana@EXAMPLE.com', allowed), true)
    assert.equal(emailAllowed('bo@example.org', allowed), true)
    assert.equal(emailAllowed(' ana@example.com ', allowed), true)
  })

  it('matches the domain exactly: no suffix, prefix or subdomain tricks', () => {
    for (const email of ['ana@evil-example.com', 'ana@example.com.evil.net', 'ana@sub.example.com', 'ana@example.co', 'ana@xexample.com', 'ana@example.com.']) {
      assert.equal(emailAllowed(email, allowed), false, email)
    }
  })

  it('refuses what is not one plain address', () => {
    for (const email of ['', 'example.com', '@example.com', 'ana@', 'ana@evil.net@example.com', 'ana@example.com@evil.net', 'a na@example.com', 'ana@exam ple.com']) {
      assert.equal(emailAllowed(email, allowed), false, JSON.stringify(email))
    }
  })

  it('allows nobody with an empty list', () => {
    assert.equal(emailAllowed('ana@example.com', []), false)
  })
})

describe('roleFromClaim', () => {
  it('takes a role named by a string, in any case', () => {
    assert.equal(roleFromClaim('admin', 'viewer'), 'admin')
    assert.equal(roleFromClaim(' Member ', 'viewer'), 'member')
    assert.equal(roleFromClaim('viewer', 'member'), 'viewer', 'a role the claim names wins over the fallback, even a lower one')
  })

  it('takes the highest role an array names, ignoring unknown values and non-strings', () => {
    assert.equal(roleFromClaim(['member', 'owner', 'admin'], 'viewer'), 'owner')
    assert.equal(roleFromClaim(['billing', 'member', 42, null, { role: 'owner' }], 'viewer'), 'member')
    assert.equal(roleFromClaim(['viewer', 'admin'], 'member'), 'admin')
  })

  it('falls back when nothing known is named', () => {
    for (const claim of [undefined, null, '', 'superuser', ['staff', 'dev'], [], 7, { admin: true }, ['admins']]) {
      assert.equal(roleFromClaim(claim, 'member'), 'member', JSON.stringify(claim))
    }
  })
})
