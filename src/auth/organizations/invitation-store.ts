/**
 * @module auth/organizations/invitation-store
 * Invitations to join an organisation (`organization_invitations`): the mailed token is 32 random
 * bytes whose SHA-256 only is kept, and it is never shown to the inviter. A new invitation to an
 * address replaces (revokes) its pending one; accepting is one conditional update (still pending,
 * not expired), so of any number of concurrent accepts exactly one makes the membership.
 * Pending invitations are the inviter's inventory kind `organization_invitations`: recovery
 * ("This wasn't me") and deletion revoke them, as do removing or demoting the inviter.
 */
import { retryOnDeadlock } from '../../database/retry-deadlock.js'
import type { Knex } from 'knex'
import { randomToken } from '../../support/random-token.js'
import { sha256Hex } from '../tokens/index.js'
import { storedDate } from '../inventory/index.js'
import { INVITATIONS_TABLE, MEMBERS_TABLE, ORGANIZATIONS_TABLE } from './records.js'

type Db = Knex | Knex.Transaction
type Key = string | number

/** A well-formed invitation token: 32 bytes, base64url. */
export const INVITATION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/
const ROW_ID = /^[1-9][0-9]{0,14}$/

export type InvitationState = 'pending' | 'expired' | 'accepted' | 'revoked'

export interface InvitationView {
  id: number
  organizationId: number
  organizationName: string
  organizationSlug: string
  email: string
  role: string
  invitedBy: string | null
  createdAt: Date | null
  expiresAt: Date | null
  state: InvitationState
}

function view(row: Record<string, unknown>, now = Date.now()): InvitationView {
  const expiresAt = storedDate(row.expires_at)
  const state: InvitationState = row.accepted_at ? 'accepted' : row.revoked_at ? 'revoked' : !expiresAt || expiresAt.getTime() <= now ? 'expired' : 'pending'
  return {
    id: Number(row.id),
    organizationId: Number(row.organization_id),
    organizationName: String(row.organization_name ?? ''),
    organizationSlug: String(row.organization_slug ?? ''),
    email: String(row.email),
    role: String(row.role),
    invitedBy: row.invited_by === null || row.invited_by === undefined ? null : String(row.invited_by),
    createdAt: storedDate(row.created_at),
    expiresAt,
    state,
  }
}

/** Rows still usable: neither accepted nor revoked, not expired. */
function pending(q: Knex.QueryBuilder, now: Date, prefix = ''): Knex.QueryBuilder {
  return q.whereNull(`${prefix}accepted_at`).whereNull(`${prefix}revoked_at`).where(`${prefix}expires_at`, '>', now)
}

export class InvitationStore {
  constructor(readonly db: () => Knex) {}

  /** Replaces the address's pending invitation to the organisation with a new one; the token (mailed, never stored). */
  async create(organizationId: number, email: string, role: string, invitedBy: Key, days: number): Promise<{ id: number; token: string }> {
    const token = randomToken(32)
    const now = new Date()
    // Concurrent invitations to one organisation take gap locks on its index (InnoDB): a
    // transaction the database picks as a deadlock victim was rolled back whole and runs again.
    const id = await retryOnDeadlock(() => this.db().transaction(async (trx) => {
      await pending(trx(INVITATIONS_TABLE).where({ organization_id: organizationId, email }), now).update({ revoked_at: now })
      const [inserted] = await trx(INVITATIONS_TABLE).insert(
        {
          organization_id: organizationId,
          email,
          role,
          token_hash: sha256Hex(token),
          invited_by: invitedBy,
          created_at: now,
          expires_at: new Date(now.getTime() + Math.round(days * 86_400_000)),
        },
        ['id'],
      )
      return Number(typeof inserted === 'object' ? (inserted as { id: unknown }).id : inserted)
    }))
    return { id, token }
  }

  /** Whether `email` already belongs to a member of the organisation. */
  async isMemberAddress(organizationId: number, email: string, users: { table: string; key: string; email: string }): Promise<boolean> {
    const row = await this.db()(`${MEMBERS_TABLE} as m`)
      .join(`${users.table} as u`, `u.${users.key}`, 'm.user_id')
      .where('m.organization_id', organizationId)
      .whereRaw(`lower(u.${users.email}) = ?`, [email])
      .first('m.user_id')
    return Boolean(row)
  }

  /** The invitation of a mailed token, in whatever state, or null (unknown, malformed). Changes nothing. */
  async findByToken(token: unknown): Promise<InvitationView | null> {
    if (typeof token !== 'string' || !INVITATION_TOKEN_SHAPE.test(token)) return null
    const row = await this.db()(`${INVITATIONS_TABLE} as i`)
      .join(`${ORGANIZATIONS_TABLE} as o`, 'o.id', 'i.organization_id')
      .where('i.token_hash', sha256Hex(token))
      .first('i.*', 'o.name as organization_name', 'o.slug as organization_slug')
    return row ? view(row) : null
  }

  /**
   * Accepts a pending invitation for `userId`: true when this call used it (the one winner of any
   * concurrent accepts) and made the membership (a user already a member keeps their role).
   */
  async accept(invitation: InvitationView, userId: Key): Promise<boolean> {
    const now = new Date()
    return this.db().transaction(async (trx) => {
      const used = await pending(trx(INVITATIONS_TABLE).where('id', invitation.id), now).update({ accepted_at: now })
      if (Number(used) !== 1) return false
      const member = await trx(MEMBERS_TABLE).where({ organization_id: invitation.organizationId, user_id: userId }).first('role')
      if (!member) await trx(MEMBERS_TABLE).insert({ organization_id: invitation.organizationId, user_id: userId, role: invitation.role, created_at: now })
      return true
    })
  }

  /** The organisation's pending invitations (never their tokens), newest first. */
  async pendingFor(organizationId: number): Promise<InvitationView[]> {
    const rows = await pending(this.db()(INVITATIONS_TABLE).where('organization_id', organizationId), new Date()).orderBy('created_at', 'desc').select('*')
    return rows.map((row: Record<string, unknown>) => view(row))
  }

  /** A pending invitation of the organisation by id, or null (another organisation's is null too). */
  async findPending(organizationId: number, id: unknown): Promise<InvitationView | null> {
    if (typeof id !== 'string' || !ROW_ID.test(id)) return null
    const row = await pending(this.db()(INVITATIONS_TABLE).where({ organization_id: organizationId, id: Number(id) }), new Date()).first('*')
    return row ? view(row) : null
  }

  /** Revokes a pending invitation; whether this call revoked it. */
  async revoke(organizationId: number, id: number): Promise<boolean> {
    const now = new Date()
    return Number(await pending(this.db()(INVITATIONS_TABLE).where({ organization_id: organizationId, id }), now).update({ revoked_at: now })) === 1
  }

  /** Pending invitations sent by `userId` (the inventory's items). */
  static pendingOf(db: Db, userId: Key): Knex.QueryBuilder {
    return pending(db(INVITATIONS_TABLE).where('invited_by', userId), new Date())
  }
}
