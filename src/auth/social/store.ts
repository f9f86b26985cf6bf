/**
 * @module auth/social/store
 * The two tables of social login:
 * - `social_identities`: one row per provider account linked to a user, unique `(provider,
 *   subject)` and `(user_id, provider)`; tokens only with `store_tokens` (encrypted, APP_KEY).
 * - `social_pending`: unfinished work, each row under the SHA-256 of a random secret and used
 *   once by one atomic delete: `state` (a redirect: PKCE verifier, nonce, intent, next, tied to
 *   the browser's `trowel_oauth` cookie), `link` (an identity waiting for a login to its account),
 *   `profile` (an identity without a verified address, waiting for one), `email` (that address's
 *   mailed link). Pruned by `auth:prune` once expired.
 * The inventory kinds: `social_identities` (a way in; ends on "This wasn't me" for those linked at
 * or after the reported event, and with the account) and `social_pending` (ended by every
 * revocation).
 */
import type { Knex } from 'knex'
import { randomToken } from '../../support/random-token.js'
import { sha256Hex } from '../tokens/index.js'
import { storedDate, type InventoryKind, type RevocationReason } from '../inventory/index.js'
import { tableKind } from '../inventory/table-kind.js'

export const IDENTITIES_TABLE = 'social_identities'
export const PENDING_TABLE = 'social_pending'
const SECRET = /^[A-Za-z0-9_-]{16,128}$/

export type PendingKind = 'state' | 'link' | 'profile' | 'email'

export interface IdentityRow {
  id: number
  user_id: number | string
  provider: string
  subject: string
  email: string | null
  created_at: unknown
  last_used_at: unknown
}

export interface PendingRow {
  id: number
  kind: PendingKind
  provider: string
  intent: string
  user_id: number | string | null
  browser_hash: string | null
  data: Record<string, unknown>
  created_at: Date | null
  expires_at: Date | null
}

/** Whether `error` is a unique-key violation (a concurrent insert won). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string }
  return e?.code === '23505' || e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062 || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/i.test(e?.message ?? '')
}

export class SocialStore {
  constructor(private readonly db: () => Knex) {}

  /** Stores a pending row under SHA-256(`secret`), live `minutes`. */
  async putPending(secret: string, row: { kind: PendingKind; provider: string; intent: string; userId?: unknown; browser?: string | null; data?: Record<string, unknown> }, minutes: number): Promise<void> {
    const now = new Date()
    await this.db()(PENDING_TABLE).insert({
      kind: row.kind,
      token_hash: sha256Hex(secret),
      browser_hash: row.browser ? sha256Hex(row.browser) : null,
      provider: row.provider,
      intent: row.intent,
      user_id: row.userId ?? null,
      data: JSON.stringify(row.data ?? {}),
      created_at: now,
      expires_at: new Date(now.getTime() + Math.round(minutes * 60_000)),
    })
  }

  /** The live row of `secret` (of that kind), changing nothing; null when unknown or expired. */
  async peekPending(secret: unknown, kind: PendingKind): Promise<PendingRow | null> {
    if (typeof secret !== 'string' || !SECRET.test(secret)) return null
    const row = await this.db()(PENDING_TABLE).where({ token_hash: sha256Hex(secret), kind }).first()
    return row ? live(row) : null
  }

  /**
   * Uses `secret` up: the row when this call deleted it (one caller wins), else null. Expired
   * rows are deleted too, and count as unknown.
   */
  async takePending(secret: unknown, kind: PendingKind): Promise<PendingRow | null> {
    if (typeof secret !== 'string' || !SECRET.test(secret)) return null
    const hash = sha256Hex(secret)
    const row = await this.db()(PENDING_TABLE).where({ token_hash: hash, kind }).first()
    if (!row) return null
    const deleted = await this.db()(PENDING_TABLE).where({ id: row.id, token_hash: hash }).delete()
    return Number(deleted) === 1 ? live(row) : null
  }

  async findIdentity(provider: string, subject: string): Promise<IdentityRow | null> {
    return ((await this.db()(IDENTITIES_TABLE).where({ provider, subject }).first()) as IdentityRow | undefined) ?? null
  }

  async identitiesOf(userId: unknown, db: Knex | Knex.Transaction = this.db()): Promise<IdentityRow[]> {
    return (await db(IDENTITIES_TABLE).where('user_id', userId as string | number).orderBy('id')) as IdentityRow[]
  }

  /**
   * Links `(provider, subject)` to the user. 'linked' when this call made the row, 'exists' when
   * that identity is already this user's, 'taken' when it (or this user's identity at the
   * provider) is someone else's / another subject.
   */
  async link(userId: unknown, provider: string, subject: string, email: string | null, tokens: { access: string | null; refresh: string | null } | null, db: Knex | Knex.Transaction = this.db()): Promise<{ outcome: 'linked' | 'exists' | 'taken'; id: number | null }> {
    let inserted = false
    try {
      await db(IDENTITIES_TABLE).insert({ user_id: userId, provider, subject, email, access_token: tokens?.access ?? null, refresh_token: tokens?.refresh ?? null, created_at: new Date(), last_used_at: new Date() })
      inserted = true
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
    }
    const row = (await db(IDENTITIES_TABLE).where({ provider, subject }).first()) as IdentityRow | undefined
    if (!row || String(row.user_id) !== String(userId)) return { outcome: 'taken', id: null }
    return { outcome: inserted ? 'linked' : 'exists', id: Number(row.id) }
  }

  async touch(id: number, tokens: { access: string | null; refresh: string | null } | null): Promise<void> {
    await this.db()(IDENTITIES_TABLE).where({ id }).update({ last_used_at: new Date(), ...(tokens ? { access_token: tokens.access, refresh_token: tokens.refresh } : {}) })
  }
}

function live(row: Record<string, unknown>): PendingRow | null {
  const expires = storedDate(row.expires_at)
  if (!expires || expires.getTime() <= Date.now()) return null
  let data: Record<string, unknown>
  try {
    data = typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : ((row.data as Record<string, unknown>) ?? {})
  } catch {
    data = {}
  }
  return {
    id: Number(row.id),
    kind: row.kind as PendingKind,
    provider: String(row.provider),
    intent: String(row.intent),
    user_id: (row.user_id as number | string | null) ?? null,
    browser_hash: (row.browser_hash as string | null) ?? null,
    data,
    created_at: storedDate(row.created_at),
    expires_at: expires,
  }
}

/** A fresh secret for a pending row (32 random bytes, base64url). */
export function newSecret(): string {
  return randomToken(32)
}

const IDENTITY_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['delete'])
const PENDING_ENDS_ON: ReadonlySet<RevocationReason> = new Set<RevocationReason>(['secure', 'password_reset', 'password_change', 'logout_others', 'delete'])

/** Linked identities: a way in, removed by "This wasn't me" when linked at or after the event. */
export function identitiesKind(): InventoryKind {
  return tableKind({
    name: 'social_identities',
    table: IDENTITIES_TABLE,
    signInMethod: true,
    endsOn: IDENTITY_ENDS_ON,
    columns: ['provider', 'email'],
    label: (row) => `${String(row.provider)}${row.email ? ` (${String(row.email)})` : ''}`,
    createdSince: true,
  })
}

/** Pending link-ups, connects and sign-ins bound to a user: every revocation ends them. */
export function pendingKind(): InventoryKind {
  return tableKind({
    name: 'social_pending',
    table: PENDING_TABLE,
    endsOn: PENDING_ENDS_ON,
    columns: ['provider', 'kind'],
    label: (row) => `Pending ${String(row.provider)} ${row.kind === 'link' ? 'link-up' : 'sign-in'}`,
  })
}
