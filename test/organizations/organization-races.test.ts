/**
 * Black-box, under concurrency (run once on PostgreSQL too):
 * - two owners demoting each other, or both leaving, at once: the organisation keeps an owner
 *   (the rule runs under a lock of the organisation's row);
 * - one invitation accepted by many requests at once: one membership, one `auth:member_joined`;
 * - the `invite` budget of an organisation under a burst: exactly its attempts get through.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startSmtpPeer, type SmtpPeer } from '../helpers/smtp-peer.js'
import { createOrg, invite, member, orgApp, send, type OrgTarget } from './org-kit.js'

const INVITE_BUDGET = 5

async function owners(t: OrgTarget, slug: string): Promise<number> {
  const org = await t.db('organizations').where('slug', slug).first('id')
  const row = await t.db('organization_members').where({ organization_id: org.id, role: 'owner' }).count({ n: '*' }).first()
  return Number(row?.n)
}

describe('organisations under concurrency', () => {
  let t: OrgTarget
  let smtp: SmtpPeer

  before(async () => {
    smtp = await startSmtpPeer()
    t = await orgApp(smtp, (app) => app.edit('config/auth.ts', (text) => text.replace(/invite: \{ attempts: 20, minutes: 60 \}/, `invite: { attempts: ${INVITE_BUDGET}, minutes: 60 }`)))
  })
  after(async () => {
    await t?.db.destroy()
    await t?.app.cleanup()
    await smtp?.close()
  })

  it('keeps an owner when two owners demote each other, or leave, at once', async () => {
    const a = await member(t, 'race-a@example.test')
    const b = await member(t, 'race-b@example.test')
    for (let round = 0; round < 4; round++) {
      const slug = await createOrg(a, `Race ${round}`)
      const org = await t.db('organizations').where('slug', slug).first('id')
      await t.db('organization_members').insert({ organization_id: org.id, user_id: b.id, role: 'owner', created_at: new Date() })
      await Promise.all([a.client.get('/organizations'), b.client.get('/organizations')])
      const [ta, tb] = [a.client.csrf(), b.client.csrf()]
      const post = (c: typeof a, token: string, path: string, form: Record<string, string> = {}) =>
        c.client.request('POST', `/organizations/${slug}${path}`, { form: { __token: token, ...form }, headers: { accept: 'application/json' } })
      const requests =
        round % 2 === 0
          ? Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? post(a, ta, `/members/${b.id}/role`, { role: 'member' }) : post(b, tb, `/members/${a.id}/role`, { role: 'member' })))
          : Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? post(a, ta, '/leave') : post(b, tb, '/leave')))
      const answers = await Promise.all(requests)
      for (const r of answers) assert.ok([200, 403, 404, 409].includes(r.status), `${r.status} ${r.text}`)
      assert.equal(await owners(t, slug), 1, `round ${round}: exactly one owner remains`)
    }
  })

  it('makes one membership of one invitation accepted many times at once', async () => {
    const owner = await member(t, 'race-owner@example.test')
    const slug = await createOrg(owner, 'Accept Race')
    const token = await invite(t, smtp, owner, slug, 'race-guest@example.test')
    const guest = await member(t, 'race-guest@example.test')
    await guest.client.get(`/invitations/${token}`)
    const csrf = guest.client.csrf()
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => guest.client.request('POST', `/invitations/${token}`, { form: { __token: csrf }, headers: { accept: 'application/json' } })),
    )
    const statuses = answers.map((r) => r.status).sort()
    assert.equal(statuses.filter((s) => s === 200).length, 1, `one accept wins: ${statuses.join(',')}`)
    assert.equal(statuses.filter((s) => s === 422).length, 11)
    const org = await t.db('organizations').where('slug', slug).first('id')
    const rows = await t.db('organization_members').where({ organization_id: org.id, user_id: guest.id })
    assert.equal(rows.length, 1)
    // The audit rows are written after the answers: wait for the first, then give a second one the
    // time it would take to show.
    const joined = () => t.db('auth_events').where({ type: 'auth:member_joined', user_id: guest.id })
    for (const until = Date.now() + 20_000; (await joined()).length === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50))
    await new Promise((r) => setTimeout(r, 300))
    assert.equal((await joined()).length, 1)
  })

  it('lets exactly the invite budget through a burst of invitations', async () => {
    const owner = await member(t, 'burst-owner@example.test')
    const slug = await createOrg(owner, 'Burst')
    await owner.client.get('/organizations')
    const csrf = owner.client.csrf()
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        owner.client.request('POST', `/organizations/${slug}/invitations`, { form: { __token: csrf, email: `burst${i}@example.test`, role: 'member' }, headers: { accept: 'application/json' } }),
      ),
    )
    const statuses = answers.map((r) => r.status)
    assert.equal(statuses.filter((s) => s === 201).length, INVITE_BUDGET, statuses.join(','))
    assert.equal(statuses.filter((s) => s === 429).length, 15 - INVITE_BUDGET)
    const org = await t.db('organizations').where('slug', slug).first('id')
    assert.equal((await t.db('organization_invitations').where('organization_id', org.id)).length, INVITE_BUDGET)
    // Another organisation has its own budget.
    const other = await createOrg(owner, 'Burst Two')
    assert.equal((await send(owner.client, `/organizations/${other}/invitations`, { email: 'elsewhere@example.test', role: 'member' }, true)).status, 201)
  })
})
