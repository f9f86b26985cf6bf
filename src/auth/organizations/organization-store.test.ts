/**
 * The organisation and invitation stores on in-memory SQLite (the migration stub's tables): the
 * last-owner rule and no escalation in the store itself, invitations replaced, accepted once and
 * revoked with their inviter, and the inventory kind (revoked by recovery and "created since";
 * deletion refused for the last owner of an organisation with other members).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../../database/sqlite-client.js'
import CreateOrganizationTables from '../../../stubs/migrations/create_organization_tables.js'
import { DEFAULT_ROLES } from './config.js'
import { LastOwnerError } from './errors.js'
import { InvitationStore } from './invitation-store.js'
import { organizationInvitationsKind } from './invitations-kind.js'
import { OrganizationStore } from './organization-store.js'
import { Roles } from './roles.js'

describe('OrganizationStore and InvitationStore', () => {
  let db: Knex
  let store: OrganizationStore
  let invitations: InvitationStore
  const users = () => ({ table: 'users', key: 'id', email: 'email' })

  before(async () => {
    db = knex({ client: SqliteClient, connection: { filename: ':memory:' }, useNullAsDefault: true })
    await db.schema.createTable('users', (t) => {
      t.increments('id')
      t.string('name')
      t.string('email').unique()
    })
    await db('users').insert([1, 2, 3, 4].map((n) => ({ name: `U${n}`, email: `u${n}@example.test` })))
    await new CreateOrganizationTables(db).up()
    store = new OrganizationStore(() => db, new Roles(DEFAULT_ROLES), users)
    invitations = new InvitationStore(() => db)
  })
  after(() => db?.destroy())

  it('creates with the creator as owner and unique slugs, and finds by slug only for members', async () => {
    const a = await store.create(1, 'Acme')
    const b = await store.create(2, 'ACME!')
    assert.equal(a.organization.slug, 'acme')
    assert.equal(b.organization.slug, 'acme-2')
    assert.equal(a.membership.role, 'owner')
    assert.deepEqual(a.membership.abilities, ['*'])
    assert.equal((await store.findBySlug('acme', 1))?.organization.id, a.organization.id)
    assert.equal(await store.findBySlug('acme', 2), null, 'not a member')
    assert.equal(await store.findBySlug('../acme', 1), null, 'malformed')
  })

  it('keeps an owner and refuses escalation', async () => {
    const { organization } = await store.create(1, 'Rules')
    await db('organization_members').insert([
      { organization_id: organization.id, user_id: 2, role: 'admin', created_at: new Date() },
      { organization_id: organization.id, user_id: 3, role: 'member', created_at: new Date() },
    ])
    await assert.rejects(store.leave(organization.id, 1), LastOwnerError)
    await assert.rejects(store.changeRole(organization.id, 1, 1, 'admin'), LastOwnerError)
    await assert.rejects(store.changeRole(organization.id, 2, 3, 'owner'), { status: 403 })
    await assert.rejects(store.changeRole(organization.id, 2, 2, 'member'), { status: 403 })
    await assert.rejects(store.remove(organization.id, 2, 1), { status: 403 })
    await assert.rejects(store.changeRole(organization.id, 3, 2, 'member'), { status: 403 }, 'a member has no members:role')
    await assert.rejects(store.changeRole(organization.id, 1, 4, 'member'), { status: 404 }, 'not a member of this organisation')
    assert.deepEqual(await store.changeRole(organization.id, 2, 3, 'admin'), { from: 'member', to: 'admin' })
  })

  it('replaces, accepts once, and revokes an inviter\'s invitations when demoted', async () => {
    const { organization } = await store.create(1, 'Invites')
    await db('organization_members').insert({ organization_id: organization.id, user_id: 2, role: 'admin', created_at: new Date() })
    const first = await invitations.create(organization.id, 'new@example.test', 'member', 2, 7)
    const second = await invitations.create(organization.id, 'new@example.test', 'member', 2, 7)
    assert.equal((await invitations.findByToken(first.token))?.state, 'revoked', 'replaced')
    const live = (await invitations.findByToken(second.token))!
    assert.equal(live.state, 'pending')
    const [one, two] = await Promise.all([invitations.accept(live, 4), invitations.accept(live, 4)])
    assert.deepEqual([one, two].sort(), [false, true])
    assert.equal((await db('organization_members').where({ organization_id: organization.id, user_id: 4 })).length, 1)
    const third = await invitations.create(organization.id, 'other@example.test', 'member', 2, 7)
    await store.changeRole(organization.id, 1, 2, 'member')
    assert.equal((await invitations.findByToken(third.token))?.state, 'revoked', 'demoting the inviter revoked it')
  })

  it('is the inviter\'s inventory kind: recovery and "created since" revoke; deletion runs the last-owner rule', async () => {
    const kind = organizationInvitationsKind((userId, trx) => store.beforeAccountDeleted(userId as number, trx))
    const { organization } = await store.create(3, 'Kinds')
    const a = await invitations.create(organization.id, 'k1@example.test', 'member', 3, 7)
    assert.equal((await kind.list(3, db)).length, 1)
    assert.equal(await kind.revokeCreatedSince!(3, new Date(Date.now() - 60_000), db), 1)
    assert.equal((await invitations.findByToken(a.token))?.state, 'revoked')
    const b = await invitations.create(organization.id, 'k2@example.test', 'member', 3, 7)
    await db.transaction((trx) => kind.revokeAll(3, trx, { reason: 'secure', trx }))
    assert.equal((await invitations.findByToken(b.token))?.state, 'revoked')
    await db('organization_members').insert({ organization_id: organization.id, user_id: 4, role: 'member', created_at: new Date() })
    await assert.rejects(
      db.transaction((trx) => kind.revokeAll(3, trx, { reason: 'delete', trx, deleting: true })),
      LastOwnerError,
    )
    assert.equal(await (await store.findBySlug('kinds', 3))?.membership.role, 'owner', 'nothing changed')
    // Alone in an organisation: it goes with the account.
    const alone = await store.create(4, 'Solo')
    await db.transaction((trx) => store.beforeAccountDeleted(4, trx))
    assert.equal(await db('organizations').where('id', alone.organization.id).first(), undefined)
  })
})
