/**
 * Roles and `GUARDS.organizations`: the defaults, abilities (`*` covers all), the no-escalation
 * subset rule, and config mistakes named by their key.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Roles } from './roles.js'
import { DEFAULT_ROLES, resolveOrganizationsConfig } from './config.js'

describe('Roles', () => {
  const roles = new Roles({ ...DEFAULT_ROLES, billing: ['billing:read'], viewer: [] })

  it('grants the abilities of the role; * covers every one', () => {
    assert.equal(roles.allows('owner', 'anything:at-all'), true)
    assert.equal(roles.allows('admin', 'members:invite'), true)
    assert.equal(roles.allows('admin', 'organization:delete'), false)
    assert.equal(roles.allows('member', 'members:invite'), false)
    assert.equal(roles.allows('ghost', 'members:invite'), false)
  })

  it('lets an actor reach only roles within their own abilities', () => {
    assert.equal(roles.within('owner', 'owner'), true)
    assert.equal(roles.within('owner', 'admin'), false, 'an admin cannot grant owner')
    assert.equal(roles.within('admin', 'admin'), true)
    assert.equal(roles.within('member', 'admin'), true)
    assert.equal(roles.within('billing', 'admin'), false, 'billing:read is not an admin ability')
    assert.equal(roles.within('viewer', 'member'), true)
    assert.equal(roles.within('ghost', 'owner'), false, 'an unknown role is never assigned')
  })
})

describe('resolveOrganizationsConfig', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(resolveOrganizationsConfig({}), { roles: DEFAULT_ROLES, invitationDays: 7, inviteBudget: { attempts: 20, minutes: 60 } })
  })

  it('reads roles, invitation_days and the invite budget', () => {
    const c = resolveOrganizationsConfig({ organizations: { roles: { owner: ['*'], editor: ['posts:edit'] }, invitation_days: 2 }, throttle: { invite: null } })
    assert.deepEqual(c.roles, { owner: ['*'], editor: ['posts:edit'] })
    assert.equal(c.invitationDays, 2)
    assert.equal(c.inviteBudget, null)
  })

  it('names the key of a mistake', () => {
    assert.throws(() => resolveOrganizationsConfig({ organizations: { roles: { admin: ['*'] } } }), /GUARDS\.organizations\.roles must have an "owner" role/)
    assert.throws(() => resolveOrganizationsConfig({ organizations: { roles: { owner: 'all' } } }), /GUARDS\.organizations\.roles\.owner must be a list/)
    assert.throws(() => resolveOrganizationsConfig({ organizations: { invitation_days: 0 } }), /GUARDS\.organizations\.invitation_days/)
    assert.throws(() => resolveOrganizationsConfig({ throttle: { invite: { attempts: 0, minutes: 1 } } }), /GUARDS\.throttle\.invite/)
    assert.throws(() => resolveOrganizationsConfig({ organizations: 'yes' }), /GUARDS\.organizations must be/)
  })
})
