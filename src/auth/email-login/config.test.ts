/**
 * `GUARDS.email_login` and the feature's budgets: the defaults when absent, one limit or a list for
 * `email_code`, null turning a budget off, and a mistake named by its key at startup.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveEmailLoginConfig } from './config.js'
import { resolveAuthConfig } from '../auth-config.js'
import { authFeatures } from '../features/index.js'

describe('resolveEmailLoginConfig', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(resolveEmailLoginConfig({}), {
      minutes: 15,
      resendSeconds: 60,
      register: false,
      requestBudget: { attempts: 10, minutes: 1 },
      codeBudgets: [
        { attempts: 10, minutes: 60 },
        { attempts: 20, minutes: 1440 },
      ],
    })
  })

  it('takes the keys, one limit or a list for email_code, and null for off', () => {
    const one = resolveEmailLoginConfig({ email_login: { minutes: 5, resend_seconds: 30, register: true }, throttle: { email_login: null, email_code: { attempts: 3, minutes: 10 } } })
    assert.equal(one.minutes, 5)
    assert.equal(one.resendSeconds, 30)
    assert.equal(one.register, true)
    assert.equal(one.requestBudget, null)
    assert.deepEqual(one.codeBudgets, [{ attempts: 3, minutes: 10 }])
    assert.deepEqual(resolveEmailLoginConfig({ throttle: { email_code: null } }).codeBudgets, [])
  })

  it('names the key of a mistake', () => {
    assert.throws(() => resolveEmailLoginConfig({ email_login: { minutes: 0 } }), /GUARDS\.email_login\.minutes/)
    assert.throws(() => resolveEmailLoginConfig({ email_login: { register: 'yes' } }), /GUARDS\.email_login\.register/)
    assert.throws(() => resolveEmailLoginConfig({ throttle: { email_code: [{ attempts: 0, minutes: 1 }] } }), /GUARDS\.throttle\.email_code/)
  })

  it('GUARDS.throttle accepts the feature budgets and GUARDS.features the feature', () => {
    const resolved = resolveAuthConfig({ default: 'web', features: ['email_login'], throttle: { email_login: { attempts: 1, minutes: 1 }, email_code: null } }, { requireModel: false, features: authFeatures() })
    assert.ok(resolved.features.has('email_login'))
    assert.throws(() => resolveAuthConfig({ default: 'web', throttle: { emial_code: null } } as never, { requireModel: false, features: authFeatures() }), /emial_code is not a budget/)
  })
})
