/**
 * @module auth/organizations/organization-store
 * The organisations and their members. Every rule that keeps an owner (`leave`, `remove`,
 * `changeRole`) runs in one transaction that first locks the organisation's row (`FOR UPDATE` on
 * PostgreSQL and MariaDB; SQLite runs one write transaction at a time), then reads the actor's and
 * the target's roles again under that lock: two owners demoting each other at once leave one owner.
 * A member's role is one indexed read of the (organization_id, user_id) primary key, joined to the
 * organisation when looked up by slug.
 */
import type { Knex } from 'knex'
import { ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js'
import { driverOf } from '../../database/lookup-value.js'
import { storedDate } from '../inventory/index.js'
import type { UsersTable } from '../inventory/account-kinds.js'
import { OWNER_ROLE } from './config.js'
import { LastOwnerError } from './errors.js'
import { INVITATIONS_TABLE, MEMBERS_TABLE, ORGANIZATIONS_TABLE, type CurrentOrganization, type OrganizationRecord } from './records.js'
import type { Roles } from './roles.js'
import { SLUG_SHAPE, slugify, uniqueSlug } from './slug.js'

type Db = Knex | Knex.Transaction
type Key = string | number

/** One member as the organisation page lists them. */
export interface MemberView {
  userId: string
  name: string
  email: string
  role: string
  joinedAt: Date | null
}

const NAME_MAX = 120
const USER_ID = /^[1-9][0-9]{0,14}$/

/** A user id from a route parameter, or null (never a query for a malformed one). */
export function memberIdParam(value: unknown): number | null {
  return typeof value === 'string' && USER_ID.test(value) ? Number(value) : null
}

/** A trimmed organisation name, or a 422 naming `name`. */
export function organizationName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim().replace(/\s+/g, ' ') : ''
  if (name === '') throw new ValidationError({ name: ['The name field is required.'] })
  if (name.length > NAME_MAX) throw new ValidationError({ name: [`The name may not be greater than ${NAME_MAX} characters.`] })
  return name
}

function record(row: Record<string, unknown>): OrganizationRecord {
  return { id: Number(row.id), name: String(row.name), slug: String(row.slug), createdAt: storedDate(row.created_at) }
}

export class OrganizationStore {
  constructor(
    readonly db: () => Knex,
    readonly roles: Roles,
    readonly users: () => UsersTable,
  ) {}

  /** Creates an organisation whose owner is `userId`; a slug taken meanwhile is retried with the next suffix. */
  async create(userId: Key, name: string): Promise<CurrentOrganization> {
    const base = slugify(name)
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db().transaction(async (trx) => {
          const taken = new Set<string>((await trx(ORGANIZATIONS_TABLE).where('slug', base).orWhere('slug', 'like', `${base.slice(0, 40)}%-%`).pluck('slug')).map(String))
          const slug = uniqueSlug(base, taken)
          const now = new Date()
          const [inserted] = await trx(ORGANIZATIONS_TABLE).insert({ name, slug, created_at: now }, ['id'])
          const id = Number(typeof inserted === 'object' ? (inserted as { id: unknown }).id : inserted)
          await trx(MEMBERS_TABLE).insert({ organization_id: id, user_id: userId, role: OWNER_ROLE, created_at: now })
          return {
            organization: { id, name, slug, createdAt: now },
            membership: { organization_id: id, user_id: String(userId), role: OWNER_ROLE, abilities: this.roles.abilities(OWNER_ROLE) },
          }
        })
      } catch (error) {
        // Two creations of one name at once: the unique slug refused the second; it takes the next.
        if (attempt < 5 && /unique|duplicate/i.test(String((error as Error)?.message))) continue
        throw error
      }
    }
  }

  /** The organisation `slug` with `userId`'s membership: one indexed read; null when either is missing. */
  async findBySlug(slug: unknown, userId: Key): Promise<CurrentOrganization | null> {
    if (typeof slug !== 'string' || !SLUG_SHAPE.test(slug) || slug.length > 48) return null
    return this.#current(this.db(), (q) => q.where('o.slug', slug), userId)
  }

  /** The organisation `id` with `userId`'s membership, or null. */
  async findById(id: unknown, userId: Key): Promise<CurrentOrganization | null> {
    const n = Number(id)
    if (!Number.isSafeInteger(n) || n < 1) return null
    return this.#current(this.db(), (q) => q.where('o.id', n), userId)
  }

  async #current(db: Db, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, userId: Key): Promise<CurrentOrganization | null> {
    const row = await where(
      db(`${ORGANIZATIONS_TABLE} as o`)
        .join(`${MEMBERS_TABLE} as m`, 'm.organization_id', 'o.id')
        .where('m.user_id', userId),
    ).first('o.id', 'o.name', 'o.slug', 'o.created_at', 'm.role')
    if (!row) return null
    const role = String(row.role)
    return { organization: record(row), membership: { organization_id: Number(row.id), user_id: String(userId), role, abilities: this.roles.abilities(role) } }
  }

  /** The organisations of `userId`, by name, with their role. */
  async forUser(userId: Key): Promise<(OrganizationRecord & { role: string })[]> {
    const rows = await this.db()(`${ORGANIZATIONS_TABLE} as o`)
      .join(`${MEMBERS_TABLE} as m`, 'm.organization_id', 'o.id')
      .where('m.user_id', userId)
      .orderBy('o.name')
      .select('o.id', 'o.name', 'o.slug', 'o.created_at', 'm.role')
    return rows.map((row) => ({ ...record(row), role: String(row.role) }))
  }

  /** The members of an organisation, owners first, with each user's name and address. */
  async members(organizationId: number): Promise<MemberView[]> {
    const { table, key, email } = this.users()
    const rows = await this.db()(`${MEMBERS_TABLE} as m`)
      .join(`${table} as u`, `u.${key}`, 'm.user_id')
      .where('m.organization_id', organizationId)
      .orderBy('m.created_at')
      .select('m.user_id', 'm.role', 'm.created_at', `u.${email} as email`, 'u.name as name')
    const owners = rows.filter((r) => r.role === OWNER_ROLE)
    return [...owners, ...rows.filter((r) => r.role !== OWNER_ROLE)].map((r) => ({
      userId: String(r.user_id),
      name: String(r.name ?? ''),
      email: String(r.email ?? ''),
      role: String(r.role),
      joinedAt: storedDate(r.created_at),
    }))
  }

  /** The name (else the address) of each user of `ids` that still exists. */
  async names(ids: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id) => USER_ID.test(id)))].map(Number)
    if (wanted.length === 0) return new Map()
    const { table, key, email } = this.users()
    const rows = await this.db()(table).whereIn(key, wanted).select(`${key} as id`, 'name', `${email} as email`)
    return new Map(rows.map((r: Record<string, unknown>) => [String(r.id), String(r.name || r.email || '')]))
  }

  async rename(organizationId: number, name: string): Promise<void> {
    await this.db()(ORGANIZATIONS_TABLE).where('id', organizationId).update({ name })
  }

  /** Deletes the organisation, its members and invitations. */
  async delete(organizationId: number): Promise<void> {
    await this.db().transaction(async (trx) => {
      await trx(INVITATIONS_TABLE).where('organization_id', organizationId).delete()
      await trx(MEMBERS_TABLE).where('organization_id', organizationId).delete()
      await trx(ORGANIZATIONS_TABLE).where('id', organizationId).delete()
    })
  }

  /** Locks the organisation's row for the rest of `trx` (PostgreSQL, MariaDB; SQLite serialises writers). */
  async lock(trx: Knex.Transaction, organizationId: number): Promise<boolean> {
    const query = trx(ORGANIZATIONS_TABLE).where('id', organizationId)
    const row = await (driverOf(trx) === 'sqlite' ? query : query.forUpdate()).first('id')
    return Boolean(row)
  }

  /** `userId`'s role in the organisation, read in `db` (under the lock when `db` holds it), or null. */
  async roleOf(db: Db, organizationId: number, userId: Key): Promise<string | null> {
    const row = await db(MEMBERS_TABLE).where({ organization_id: organizationId, user_id: userId }).first('role')
    return row ? String(row.role) : null
  }

  async #owners(db: Db, organizationId: number): Promise<number> {
    const row = await db(MEMBERS_TABLE).where({ organization_id: organizationId, role: OWNER_ROLE }).count({ n: '*' }).first()
    return Number((row as { n: unknown } | undefined)?.n ?? 0)
  }

  /**
   * Runs `work` with the organisation locked and the actor's role read under the lock: a 404
   * when the organisation or the actor's membership is gone meanwhile.
   */
  async #locked<T>(organizationId: number, actorId: Key, work: (trx: Knex.Transaction, actorRole: string) => Promise<T>): Promise<T> {
    return this.db().transaction(async (trx) => {
      if (!(await this.lock(trx, organizationId))) throw new NotFoundError()
      const actorRole = await this.roleOf(trx, organizationId, actorId)
      if (actorRole === null) throw new NotFoundError()
      return work(trx, actorRole)
    })
  }

  /** Whether a role change from `from` to `to` gives up an ability (a demotion). */
  demotes(from: string, to: string): boolean {
    return !this.roles.within(from, to)
  }

  /**
   * Sets member `targetId`'s role (the actor needs `members:role`): the target is looked up inside
   * this organisation (404 otherwise); both roles must be within the actor's; nobody changes their
   * own role, except an owner demoting themselves while another owner remains; the last owner is
   * never demoted. Returns the role before (equal to `to` when nothing changed).
   */
  async changeRole(organizationId: number, actorId: Key, targetId: number, to: string): Promise<{ from: string; to: string }> {
    if (!this.roles.has(to)) throw new ValidationError({ role: [`The role must be one of: ${this.roles.names().join(', ')}.`] })
    return this.#locked(organizationId, actorId, async (trx, actorRole) => {
      if (!this.roles.allows(actorRole, 'members:role')) throw new ForbiddenError()
      const from = await this.roleOf(trx, organizationId, targetId)
      if (from === null) throw new NotFoundError()
      const self = String(targetId) === String(actorId)
      if (self && !(from === OWNER_ROLE && actorRole === OWNER_ROLE)) throw new ForbiddenError('You cannot change your own role.')
      if (!this.roles.within(from, actorRole) || !this.roles.within(to, actorRole)) throw new ForbiddenError('You cannot assign or change a role with abilities you do not have.')
      if (from === to) return { from, to }
      if (from === OWNER_ROLE && (await this.#owners(trx, organizationId)) <= 1) throw new LastOwnerError()
      await trx(MEMBERS_TABLE).where({ organization_id: organizationId, user_id: targetId }).update({ role: to })
      if (this.demotes(from, to)) await this.#revokeInvitationsOf(trx, organizationId, targetId)
      return { from, to }
    })
  }

  /** Removes member `targetId` (the actor needs `members:remove` and the target's role within theirs; not themselves: that is leaving). */
  async remove(organizationId: number, actorId: Key, targetId: number): Promise<{ role: string }> {
    return this.#locked(organizationId, actorId, async (trx, actorRole) => {
      if (!this.roles.allows(actorRole, 'members:remove')) throw new ForbiddenError()
      const role = await this.roleOf(trx, organizationId, targetId)
      if (role === null) throw new NotFoundError()
      if (String(targetId) === String(actorId)) throw new ForbiddenError('To leave the organisation, use Leave.')
      if (!this.roles.within(role, actorRole)) throw new ForbiddenError('You cannot remove a member whose role has abilities you do not have.')
      if (role === OWNER_ROLE && (await this.#owners(trx, organizationId)) <= 1) throw new LastOwnerError()
      await trx(MEMBERS_TABLE).where({ organization_id: organizationId, user_id: targetId }).delete()
      await this.#revokeInvitationsOf(trx, organizationId, targetId)
      return { role }
    })
  }

  /** The actor leaves; the last owner cannot. */
  async leave(organizationId: number, actorId: Key): Promise<{ role: string }> {
    return this.#locked(organizationId, actorId, async (trx, role) => {
      if (role === OWNER_ROLE && (await this.#owners(trx, organizationId)) <= 1) throw new LastOwnerError('You are the last owner: make another member an owner, or delete the organisation.')
      await trx(MEMBERS_TABLE).where({ organization_id: organizationId, user_id: actorId }).delete()
      await this.#revokeInvitationsOf(trx, organizationId, actorId)
      return { role }
    })
  }

  /** Pending invitations sent by `userId` in the organisation end (the inviter lost the right). */
  async #revokeInvitationsOf(trx: Knex.Transaction, organizationId: number, userId: Key): Promise<void> {
    await trx(INVITATIONS_TABLE)
      .where({ organization_id: organizationId, invited_by: userId })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .update({ revoked_at: new Date() })
  }

  /**
   * Before `userId`'s account is deleted (in its transaction): refused with 409 when they are the
   * last owner of an organisation with other members; the organisations they are alone in go.
   */
  async beforeAccountDeleted(userId: Key, trx: Knex.Transaction): Promise<void> {
    const owned = (await trx(MEMBERS_TABLE).where({ user_id: userId, role: OWNER_ROLE }).pluck('organization_id')).map(Number)
    for (const organizationId of owned) {
      await this.lock(trx, organizationId)
      const members = await trx(MEMBERS_TABLE).where('organization_id', organizationId).select('user_id', 'role')
      if (members.length === 1) {
        await trx(INVITATIONS_TABLE).where('organization_id', organizationId).delete()
        await trx(MEMBERS_TABLE).where('organization_id', organizationId).delete()
        await trx(ORGANIZATIONS_TABLE).where('id', organizationId).delete()
        continue
      }
      if (members.filter((m) => m.role === OWNER_ROLE).length <= 1) {
        throw new LastOwnerError('You are the last owner of an organisation with other members: make another member an owner, or delete the organisation, before deleting your account.')
      }
    }
    await trx(MEMBERS_TABLE).where('user_id', userId).delete()
  }
}
