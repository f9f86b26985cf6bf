/**
 * `craft auth --organizations`'s edits of config/auth.ts and config/providers.ts: made once, then
 * left alone; a file without the expected shape is refused.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { editAuthConfig, editProviders } from './organizations-wiring.js'

const AUTH = `export const GUARDS = {
  default: 'web',
  features: ['registration', 'reset_passwords', 'account'],
  throttle: {
    login: { attempts: 5, minutes: 1 },
  },
}
`
const PROVIDERS = `import { AuthProvider } from 'trowel/auth'

export const PROVIDERS = [
  AuthProvider,
]
`

describe('editAuthConfig', () => {
  it('adds the feature, the organizations block and the invite budget, once', () => {
    const out = editAuthConfig(AUTH) as string
    assert.match(out, /features: \['registration', 'reset_passwords', 'account', 'organizations'\],\n/)
    assert.match(out, /\n {2}organizations: \{ roles: \{ owner: \['\*'\], admin: \['organization:update', 'members:invite', 'members:remove', 'members:role'\], member: \[\] \}, invitation_days: 7 \},\n/)
    assert.match(out, /throttle: \{\n {4}invite: \{ attempts: 20, minutes: 60 \},\n {4}login/)
    assert.equal(editAuthConfig(out), null)
  })

  it('refuses a file without a features list', () => {
    assert.deepEqual(editAuthConfig('export const GUARDS = {}'), { refused: 'it has no "features: [...]" list in GUARDS' })
  })
})

describe('editProviders', () => {
  it('adds AuthorizationProvider last, with its import, once', () => {
    const out = editProviders(PROVIDERS) as string
    assert.match(out, /^import \{ AuthorizationProvider \} from '\.\.\/app\/providers\/AuthorizationProvider\.js'\n/)
    assert.match(out, /\[\n {2}AuthProvider,\n {2}AuthorizationProvider,\n\]/)
    assert.equal(editProviders(out), null)
    assert.match(editProviders('export const PROVIDERS = [AuthProvider]') as string, /\[AuthProvider,\n {2}AuthorizationProvider,\n\]/)
  })
})
