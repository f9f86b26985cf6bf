/**
 * Black-box: organisations in a generated app (`craft auth --organizations`), over HTTP.
 * - The command writes the pages, migration and AuthorizationProvider and turns the feature on.
 * - Create (JSON 201 and pages), slugs with -2 on collision, switch, rename (the slug stays).
 * - Every @slug route is 404 for a non-member; every member @id of another organisation is 404.
 * - No escalation: an admin cannot grant owner, invite as owner, remove an owner or change their
 *   own role; a member without the ability gets 403 E_FORBIDDEN.
 * - The last owner cannot leave, be demoted or delete their account while others are members (409).
 * - `org`: @organization > X-Organization > session; a role change or removal applies to the next
 *   request, web and API (a JWT carries no role).
 * - Invitations: mailed link, hashed, never shown to the inviter; member address 422; wrong
 *   address 403 and still usable; used, revoked, replaced and expired ones; revoked when the
 *   inviter is removed; pruned by auth:prune.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '../helpers/http-client.js'
import { getToken, sha256 } from '../helpers/security-kit.js'
import { startSmtpPeer, type SmtpPeer } from '../helpers/smtp-peer.js'
import { createOrg, invite, member, METRICS, orgApp, PASSWORD, roleIn, send, type OrgTarget } from './org-kit.js'

describe('organisations', () => {
  let t: OrgTarget
  let smtp: SmtpPeer

  before(async () => {
    smtp = await startSmtpPeer()
    t = await orgApp(smtp)
  })
  after(async () => {
    await t?.db.destroy()
    await t?.app.cleanup()
    await smtp?.close()
  })

  it('craft auth --organizations writes the pages, the migration and the provider, and turns the feature on', () => {
    const auth = t.app.read('config/auth.ts')
    assert.match(auth, /features: \[[^\]]*'organizations'\]/)
    assert.match(auth, /organizations: \{ roles: \{ owner: \['\*'\], admin: \['organization:update', 'members:invite', 'members:remove', 'members:role'\], member: \[\] \}, invitation_days: 7 \}/)
    assert.match(auth, /invite: \{ attempts: 20, minutes: 60 \}/)
    assert.match(t.app.read('config/providers.ts'), /AuthorizationProvider,/)
    assert.ok(t.app.exists('app/providers/AuthorizationProvider.ts'))
    assert.ok(t.app.exists('app/controllers/auth/OrganizationsController.ts'))
    assert.ok(t.app.exists('app/controllers/auth/InvitationsController.ts'))
    assert.ok(t.app.exists('templates/organizations/show.html'))
    const again = t.app.craft('auth', '--organizations', '--missing')
    assert.equal(again.code, 0, again.stderr)
    assert.equal((t.app.read('config/auth.ts').match(/'organizations'/g) ?? []).length, 1, 'the feature is added once')
  })

  it('creates (page and JSON), switches and renames; slugs take -2 on collision and survive a rename', async () => {
    const ada = await member(t, 'ada@example.test', 'Ada')
    const page = await send(ada.client, '/organizations', { name: 'Café Société' })
    assert.equal(page.status, 302)
    assert.equal(page.location, '/organizations/cafe-societe')
    const shown = await ada.client.get('/organizations/cafe-societe')
    assert.equal(shown.status, 200)
    assert.match(shown.text, /<h1>Café Société<\/h1>/)
    assert.match(shown.text, /<label for="invite-email">Email<\/label>/)
    const json = await send(ada.client, '/organizations', { name: 'Café  Société' }, true)
    assert.equal(json.status, 201)
    const { data } = json.json()
    assert.deepEqual({ name: data.name, slug: data.slug, role: data.role }, { name: 'Café Société', slug: 'cafe-societe-2', role: 'owner' })
    assert.equal(typeof data.id, 'number')
    // The newest is current; switching back makes the first current.
    assert.equal((await ada.client.get('/team')).json().data.slug, 'cafe-societe-2')
    const sw = await send(ada.client, '/organizations/cafe-societe/switch')
    assert.equal(sw.status, 302)
    assert.equal((await ada.client.get('/team')).json().data.slug, 'cafe-societe')
    const renamed = await send(ada.client, '/organizations/cafe-societe', { name: 'Renamed Co' }, true)
    assert.equal(renamed.status, 200, renamed.text)
    assert.equal(renamed.json().data.slug, 'cafe-societe')
    const list = await ada.client.request('GET', '/organizations', { headers: { accept: 'application/json' } })
    assert.deepEqual(list.json().data.map((o: { name: string; slug: string }) => [o.name, o.slug]), [['Café Société', 'cafe-societe-2'], ['Renamed Co', 'cafe-societe']])
    const empty = await send(ada.client, '/organizations', { name: '   ' }, true)
    assert.equal(empty.status, 422)
  })

  it('is 404 for non-members on every @slug route, and for a member @id of another organisation', async () => {
    const owner = await member(t, 'own1@example.test')
    const other = await member(t, 'other1@example.test')
    const slug = await createOrg(owner, 'Private One')
    const otherSlug = await createOrg(other, 'Other One')
    const paths = ['', '/invitations', '/invitations/1/revoke', `/members/${owner.id}/role`, `/members/${owner.id}/remove`, '/leave', '/switch', '/delete']
    const get = await other.client.request('GET', `/organizations/${slug}`, { headers: { accept: 'application/json' } })
    assert.equal(get.status, 404)
    assert.equal((await other.client.get('/organizations/no-such-org')).status, 404)
    for (const path of paths) {
      const r = await send(other.client, `/organizations/${slug}${path}`, { name: 'x', email: 'x@example.test', role: 'member' }, true)
      assert.equal(r.status, path === '/delete' ? r.status : 404, `${path}: ${r.status}`)
      if (path !== '/delete') assert.equal(r.json().code, 'E_NOT_FOUND')
    }
    // The owner of Other One names Private One's owner as a member of their own organisation: 404.
    for (const action of ['role', 'remove']) {
      const r = await send(other.client, `/organizations/${otherSlug}/members/${owner.id}/${action}`, { role: 'member' }, true)
      assert.equal(r.status, 404, action)
    }
    assert.equal(await roleIn(t, slug, owner.id), 'owner')
    // X-Organization and @organization naming an organisation the user is not in: 404.
    assert.equal((await other.client.request('GET', '/team', { headers: { 'x-organization': slug, accept: 'application/json' } })).status, 404)
    assert.equal((await other.client.request('GET', `/o/${slug}/team`, { headers: { accept: 'application/json' } })).status, 404)
  })

  it('lets nobody escalate: admins cannot grant owner, invite as owner, remove an owner or change their own role', async () => {
    const owner = await member(t, 'own2@example.test')
    const admin = await member(t, 'admin2@example.test')
    const plain = await member(t, 'plain2@example.test')
    const slug = await createOrg(owner, 'Escalation')
    await t.db('organization_members').insert([
      { organization_id: (await t.db('organizations').where('slug', slug).first('id')).id, user_id: admin.id, role: 'admin', created_at: new Date() },
      { organization_id: (await t.db('organizations').where('slug', slug).first('id')).id, user_id: plain.id, role: 'member', created_at: new Date() },
    ])
    const asAdmin = (path: string, form: Record<string, string>) => send(admin.client, `/organizations/${slug}${path}`, form, true)
    assert.equal((await asAdmin(`/members/${plain.id}/role`, { role: 'owner' })).status, 403, 'grant owner')
    assert.equal((await asAdmin('/invitations', { email: 'new@example.test', role: 'owner' })).status, 403, 'invite as owner')
    assert.equal((await asAdmin(`/members/${owner.id}/remove`, {})).status, 403, 'remove an owner')
    assert.equal((await asAdmin(`/members/${owner.id}/role`, { role: 'member' })).status, 403, 'demote an owner')
    const self = await asAdmin(`/members/${admin.id}/role`, { role: 'member' })
    assert.equal(self.status, 403, 'own role')
    assert.equal(self.json().code, 'E_FORBIDDEN')
    assert.equal((await asAdmin(`/members/${plain.id}/role`, { role: 'nonsense' })).status, 422)
    assert.equal(await roleIn(t, slug, admin.id), 'admin')
    assert.equal(await roleIn(t, slug, owner.id), 'owner')
    // Within their abilities it works.
    assert.equal((await asAdmin(`/members/${plain.id}/role`, { role: 'admin' })).status, 200)
    assert.equal((await asAdmin(`/members/${plain.id}/role`, { role: 'member' })).status, 200)
    // A member without the ability: 403 (page and JSON).
    const asPlain = await send(plain.client, `/organizations/${slug}`, { name: 'Mine now' }, true)
    assert.equal(asPlain.status, 403)
    assert.equal(asPlain.json().code, 'E_FORBIDDEN')
    assert.equal((await send(plain.client, `/organizations/${slug}/invitations`, { email: 'x@example.test', role: 'member' })).status, 403)
    const del = await send(admin.client, `/organizations/${slug}/delete`, {}, true)
    assert.ok([403, 423].includes(del.status), `an admin cannot delete: ${del.status}`)
  })

  it('keeps an owner: the last one cannot leave, be demoted, or delete their account while others are members', async () => {
    const owner = await member(t, 'own3@example.test')
    const second = await member(t, 'second3@example.test')
    const slug = await createOrg(owner, 'Always Owned')
    const orgId = (await t.db('organizations').where('slug', slug).first('id')).id
    await t.db('organization_members').insert({ organization_id: orgId, user_id: second.id, role: 'member', created_at: new Date() })
    const leave = await send(owner.client, `/organizations/${slug}/leave`, {}, true)
    assert.equal(leave.status, 409)
    assert.equal(leave.json().code, 'E_CONFLICT')
    const page = await send(owner.client, `/organizations/${slug}/leave`)
    assert.equal(page.status, 302)
    assert.equal((await owner.client.get(page.location!)).text.includes('last owner'), true)
    assert.equal((await send(owner.client, `/organizations/${slug}/members/${owner.id}/role`, { role: 'admin' }, true)).status, 409)
    // Account deletion: 409, and nothing is deleted.
    await send(owner.client, '/confirm-password', { password: PASSWORD })
    const gone = await send(owner.client, '/account/delete', {}, true)
    assert.equal(gone.status, 409, gone.text)
    assert.ok(await t.db('users').where('id', owner.id).first())
    // With a second owner, the first may demote themselves, and the last may not.
    assert.equal((await send(owner.client, `/organizations/${slug}/members/${second.id}/role`, { role: 'owner' }, true)).status, 200)
    assert.equal((await send(owner.client, `/organizations/${slug}/members/${owner.id}/role`, { role: 'admin' }, true)).status, 200)
    assert.equal((await send(second.client, `/organizations/${slug}/members/${second.id}/role`, { role: 'admin' }, true)).status, 409)
    assert.equal(await roleIn(t, slug, second.id), 'owner')
  })

  it('deletes an organisation: owners only, behind password.confirm', async () => {
    const owner = await member(t, 'own7@example.test')
    const slug = await createOrg(owner, 'Doomed')
    const orgId = (await t.db('organizations').where('slug', slug).first('id')).id
    await invite(t, smtp, owner, slug, 'd7@example.test')
    await send(owner.client, '/confirm-password', { password: PASSWORD })
    const gone = await send(owner.client, `/organizations/${slug}/delete`)
    assert.equal(gone.status, 302, gone.text)
    assert.equal(gone.location, '/organizations')
    assert.equal(await t.db('organizations').where('id', orgId).first(), undefined)
    assert.equal((await t.db('organization_members').where('organization_id', orgId)).length, 0)
    assert.equal((await t.db('organization_invitations').where('organization_id', orgId)).length, 0)
    assert.equal((await owner.client.get(`/organizations/${slug}`)).status, 404)
  })

  it('reads the membership on every request: a role change or removal applies next time, web and API (X-Organization)', async () => {
    const owner = await member(t, 'own4@example.test')
    const staff = await member(t, 'staff4@example.test')
    const slug = await createOrg(owner, 'Live Roles')
    const slugB = await createOrg(staff, 'Staff Own')
    const orgId = (await t.db('organizations').where('slug', slug).first('id')).id
    await t.db('organization_members').insert({ organization_id: orgId, user_id: staff.id, role: 'admin', created_at: new Date() })
    const token = await getToken(t.url, staff.email)
    const api = (headers: Record<string, string> = {}) => new Client(t.url).request('GET', '/api/team', { headers: { authorization: `Bearer ${token}`, ...headers } })
    assert.deepEqual((await api({ 'x-organization': slug })).json().data, { slug, role: 'admin' })
    assert.equal((await api()).status, 403, 'no current organisation on the API')
    assert.equal((await api()).json().code, 'E_FORBIDDEN')
    // Web: @organization wins over X-Organization, which wins over the session (Staff Own is current).
    assert.equal((await staff.client.get('/team')).json().data.slug, slugB)
    assert.equal((await staff.client.request('GET', '/team', { headers: { 'x-organization': slug } })).json().data.slug, slug)
    assert.equal((await staff.client.request('GET', `/o/${slugB}/team`, { headers: { 'x-organization': slug } })).json().data.slug, slugB)
    // can: decides with the current membership's role abilities, web and API.
    assert.equal((await api({ 'x-organization': slug }).then(() => new Client(t.url).request('GET', '/api/can-invite', { headers: { authorization: `Bearer ${token}`, 'x-organization': slug } }))).status, 200)
    assert.equal((await staff.client.request('GET', '/can-invite', { headers: { 'x-organization': slug, accept: 'application/json' } })).status, 200)
    assert.equal((await staff.client.request('GET', '/can-invite', { headers: { 'x-organization': slugB, accept: 'application/json' } })).status, 200, 'owner of their own')
    await send(owner.client, `/organizations/${slug}/members/${staff.id}/role`, { role: 'member' }, true)
    assert.equal((await new Client(t.url).request('GET', '/api/can-invite', { headers: { authorization: `Bearer ${token}`, 'x-organization': slug } })).status, 403, 'a member may not invite')
    assert.equal((await staff.client.request('GET', '/can-invite', { headers: { 'x-organization': slug, accept: 'application/json' } })).status, 403)
    assert.equal((await api({ 'x-organization': slug })).json().data.role, 'member', 'the next API request sees the new role')
    assert.equal((await staff.client.request('GET', '/team', { headers: { 'x-organization': slug } })).json().data.role, 'member')
    await send(owner.client, `/organizations/${slug}/members/${staff.id}/remove`, {}, true)
    assert.equal((await api({ 'x-organization': slug })).status, 404, 'removed: the next API request is refused')
    assert.equal((await staff.client.request('GET', '/team', { headers: { 'x-organization': slug, accept: 'application/json' } })).status, 404)
    // A web page without any current organisation goes to /organizations.
    const fresh = await member(t, 'fresh4@example.test')
    const none = await fresh.client.get('/team')
    assert.equal(none.status, 302)
    assert.equal(none.location, '/organizations')
  })

  it('invites by mail: hashed, never shown to the inviter, single use, for the invited address only', async () => {
    const owner = await member(t, 'own5@example.test', 'Olive')
    const slug = await createOrg(owner, 'Invites Inc')
    const sent = await send(owner.client, `/organizations/${slug}/invitations`, { email: 'Guest5@Example.test', role: 'admin' }, true)
    assert.equal(sent.status, 201)
    const mail = await smtp.waitFor((m) => m.to.includes('guest5@example.test'))
    const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!
    assert.ok(mail.raw.replace(/=\r?\n/g, '').includes(`http://app.example.test/invitations/${token}`))
    assert.ok(!sent.text.includes(token), 'not in the JSON answer')
    const orgPage = await owner.client.get(`/organizations/${slug}`)
    assert.ok(orgPage.text.includes('guest5@example.test'))
    assert.ok(!orgPage.text.includes(token), 'not on the page')
    const row = await t.db('organization_invitations').where('email', 'guest5@example.test').first()
    assert.equal(row.token_hash, sha256(token))
    // A member's address: 422.
    assert.equal((await send(owner.client, `/organizations/${slug}/invitations`, { email: owner.email, role: 'member' }, true)).status, 422)

    // A visitor sees the invitation and is asked to log in; GET and HEAD change nothing.
    const visitor = new Client(t.url)
    const shown = await visitor.get(`/invitations/${token}`)
    assert.equal(shown.status, 200)
    assert.match(shown.text, /Invites Inc/)
    assert.match(shown.text, new RegExp(`/login\\?next=%2Finvitations%2F${token}`))
    assert.equal((await visitor.request('HEAD', `/invitations/${token}`)).status, 200)
    await visitor.get('/login')
    const anon = await visitor.post(`/invitations/${token}`, { __token: visitor.csrf() })
    assert.equal(anon.status, 302)
    assert.match(anon.location!, /^\/login\?next=/)
    // Another address: 403, and it stays usable.
    const wrong = await member(t, 'wrong5@example.test')
    await wrong.client.get(`/invitations/${token}`)
    const refused = await wrong.client.request('POST', `/invitations/${token}`, { form: { __token: wrong.client.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(refused.status, 403)
    assert.equal(refused.json().code, 'E_FORBIDDEN')
    // Register with the invited address, come back, accept.
    const guest = await member(t, 'guest5@example.test', 'Guest')
    await guest.client.get(`/invitations/${token}`)
    const accepted = await guest.client.post(`/invitations/${token}`, { __token: guest.client.csrf() })
    assert.equal(accepted.status, 302)
    assert.equal(accepted.location, `/organizations/${slug}`)
    assert.equal(await roleIn(t, slug, guest.id), 'admin')
    assert.equal((await guest.client.get('/team')).json().data.slug, slug, 'the joined organisation is current')
    // Used: a page that says so, and JSON 422.
    const used = await guest.client.get(`/invitations/${token}`)
    assert.equal(used.status, 410)
    assert.match(used.text, /already been used/)
    const usedJson = await guest.client.request('POST', `/invitations/${token}`, { form: { __token: guest.client.csrf() }, headers: { accept: 'application/json' } })
    assert.equal(usedJson.status, 422)
    assert.equal((await new Client(t.url).get('/invitations/' + 'A'.repeat(43))).status, 404)
  })

  it('replaces, revokes, expires, revokes with the inviter, and prunes invitations', async () => {
    const owner = await member(t, 'own6@example.test')
    const admin = await member(t, 'admin6@example.test')
    const slug = await createOrg(owner, 'Lifecycle')
    const orgId = (await t.db('organizations').where('slug', slug).first('id')).id
    await t.db('organization_members').insert({ organization_id: orgId, user_id: admin.id, role: 'admin', created_at: new Date() })
    const first = await invite(t, smtp, owner, slug, 'g6@example.test')
    const second = await invite(t, smtp, owner, slug, 'g6@example.test')
    assert.match((await new Client(t.url).get(`/invitations/${first}`)).text, /withdrawn/, 'replaced by the newer one')
    assert.equal((await new Client(t.url).get(`/invitations/${second}`)).status, 200)
    const pending = await t.db('organization_invitations').where({ email: 'g6@example.test' }).whereNull('revoked_at').first('id')
    assert.equal((await send(owner.client, `/organizations/${slug}/invitations/${pending.id}/revoke`, {}, true)).status, 200)
    assert.match((await new Client(t.url).get(`/invitations/${second}`)).text, /withdrawn/)
    // Expired.
    const third = await invite(t, smtp, owner, slug, 'h6@example.test')
    await t.db('organization_invitations').where('token_hash', sha256(third)).update({ expires_at: new Date(Date.now() - 1000) })
    assert.match((await new Client(t.url).get(`/invitations/${third}`)).text, /expired/)
    // The inviter removed: their pending invitations end.
    const byAdmin = await invite(t, smtp, admin, slug, 'k6@example.test')
    assert.equal((await send(owner.client, `/organizations/${slug}/members/${admin.id}/remove`, {}, true)).status, 200)
    assert.match((await new Client(t.url).get(`/invitations/${byAdmin}`)).text, /withdrawn/)
    // auth:prune removes invitations past their expiry.
    const prune = t.app.craft('auth:prune')
    assert.equal(prune.code, 0, prune.stderr)
    assert.equal(await t.db('organization_invitations').where('token_hash', sha256(third)).first(), undefined)
    assert.ok(await t.db('organization_invitations').where('token_hash', sha256(byAdmin)).first(), 'a live row stays')
    // Counted in /metrics, and shown as the organisation's activity.
    const metrics = await new Client(t.url).get('/metrics', { authorization: `Bearer ${METRICS}` })
    const invited = /trowel_organization_events_total\{event="member_invited"\} (\d+)/.exec(metrics.text)
    assert.ok(invited && Number(invited[1]) >= 5, metrics.text.slice(0, 300))
    const page = await owner.client.get(`/organizations/${slug}`)
    assert.match(page.text, /removed admin6/)
    assert.match(page.text, /invited someone as member/)
  })
})
