import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { auditRow } from './audit-log.js'

const base = { guard: 'web', ip: '203.0.113.9', userAgent: 'UA/1', at: new Date('2026-11-20T10:00:00Z'), requestId: 'req-1' }

describe('auditRow', () => {
  it('puts user, ip, user agent and time in columns, and the rest in details', () => {
    const row = auditRow('auth:throttled', { ...base, user: { getKey: () => 7 }, retryAfter: 42 })
    assert.deepEqual(row, {
      user_id: 7,
      type: 'auth:throttled',
      ip: '203.0.113.9',
      user_agent: 'UA/1',
      details: JSON.stringify({ guard: 'web', retryAfter: 42 }),
      created_at: base.at,
    })
  })

  it('takes userId when the event names a subject without loading the user', () => {
    assert.equal(auditRow('auth:token_reissued', { ...base, user: null, userId: '12' }).user_id, 12)
    assert.equal(auditRow('auth:login_failed', { ...base, user: null }).user_id, null)
  })

  it('drops any field named like a secret, and any nested value', () => {
    const row = auditRow('auth:login_failed', {
      ...base,
      user: null,
      password: 'hunter2 hunter2',
      token: 'abc',
      resetUrl: 'http://x/change_password/abc',
      cookie: 'c',
      nested: { a: 1 },
    } as never)
    assert.equal(row.details, JSON.stringify({ guard: 'web' }))
  })

  it('cuts long user agents and addresses to the column sizes', () => {
    const row = auditRow('auth:login_failed', { ...base, user: null, userAgent: 'x'.repeat(1000), ip: 'y'.repeat(100) })
    assert.equal(String(row.user_agent).length, 255)
    assert.equal(String(row.ip).length, 64)
  })
})
