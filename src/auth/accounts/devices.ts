/**
 * @module auth/accounts/devices
 * The "Devices" of an account page: every way the user is logged in, as one list. Each kind of
 * login is a `DeviceSource`; the web guard's logins (`login_tokens`, one row per browser, with
 * its "remember me" token in `remember_tokens`) are built in, and another feature (API token
 * families, say) adds its own with `devicesOf(manager).register(source)`. A source lists the
 * user's devices and ends one of them by id; ids are what `POST /account/devices/@id/revoke`
 * takes, so each source claims its own shape of id (the web logins: the row's numeric id).
 *
 * Also the readable name of a user agent ("Firefox 132 on Windows"), through `bowser`.
 */
import type { Knex } from 'knex'
import type BowserType from 'bowser'
import { lazyModule } from '../../support/lazy-module.js'

/** bowser, loaded by the first user agent described. */
const bowser = lazyModule<typeof BowserType>('bowser')
import type { AuthInventory } from '../inventory/index.js'

/** One logged-in device (or client) of a user, as the devices page shows it. */
export interface Device {
  /** What `POST /account/devices/@id/revoke` takes (a web login: `login_tokens.id`). */
  id: string
  /** The source it comes from (`web`, ...). */
  kind: string
  createdAt: Date | null
  /** When it last made a request (the web guard writes this at most once a minute); null: unknown. */
  lastUsedAt: Date | null
  ip: string | null
  userAgent: string | null
  /** The client in plain words: "Firefox 132 on Windows". */
  client: string
  /** The device making this request. */
  current: boolean
}

/** What a source is told about the request asking. */
export interface DeviceContext {
  /** SHA-256 of this request's `trowel_auth` token (the `login_tokens.token_hash` of this login), or null. */
  currentLoginHash: string | null
}

/** The outcome of ending one device. */
export interface RevokedDevice {
  /** Logins (or tokens) ended: 1 for a web login, whose "remember me" token goes with it. */
  count: number
  /** It was the device making the request: the caller logs this request out too. */
  current: boolean
}

/** One kind of login a user can have. */
export interface DeviceSource {
  readonly kind: string
  /** Whether `id` has this source's shape (it may still be unknown or someone else's). */
  owns(id: string): boolean
  list(userId: unknown, context: DeviceContext): Promise<Device[]>
  /** Ends the user's device `id`; null when the user has no such device (unknown, or another user's). */
  revoke(userId: unknown, id: string, context: DeviceContext): Promise<RevokedDevice | null>
}

export class DeviceRegistry {
  readonly #sources: DeviceSource[] = []

  /** Adds a kind of device (replacing one of the same `kind`). */
  register(source: DeviceSource): void {
    const at = this.#sources.findIndex((s) => s.kind === source.kind)
    if (at === -1) this.#sources.push(source)
    else this.#sources[at] = source
  }

  get sources(): readonly DeviceSource[] {
    return this.#sources
  }

  /** Every device of the user: this one first, then the most recently used. */
  async list(userId: unknown, context: DeviceContext): Promise<Device[]> {
    const all = (await Promise.all(this.#sources.map((s) => s.list(userId, context)))).flat()
    const recency = (d: Device) => (d.lastUsedAt ?? d.createdAt)?.getTime() ?? 0
    return all.sort((a, b) => Number(b.current) - Number(a.current) || recency(b) - recency(a))
  }

  /** Ends the user's device `id`; null when no source has it for this user. */
  async revoke(userId: unknown, id: string, context: DeviceContext): Promise<RevokedDevice | null> {
    for (const source of this.#sources) {
      if (!source.owns(id)) continue
      const done = await source.revoke(userId, id, context)
      if (done) return done
    }
    return null
  }
}

/** The app's device sources (`manager.devices`: the web logins built in); typed by shape, so this module needs no AuthManager. */
export function devicesOf(manager: { readonly devices: DeviceRegistry }): DeviceRegistry {
  return manager.devices
}

function date(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null
  const at = new Date(value as string | number | Date)
  return Number.isFinite(at.getTime()) ? at : null
}

/** A positive whole number that fits every driver's integer id; anything else is no login id. */
const LOGIN_ID = /^[1-9][0-9]{0,14}$/

/**
 * The web guard's logins: a row of `login_tokens` each, its "remember me" token (`remember_tokens`
 * whose `login_token_hash` is the login's `token_hash`) ended with it.
 */
export class WebLoginDevices implements DeviceSource {
  readonly kind = 'web'

  constructor(
    private readonly db: () => Knex,
    /** Ends a login (and its "remember me" series) through the inventory's `logins` kind. */
    private readonly inventory: AuthInventory,
    private readonly table = 'login_tokens',
  ) {}

  owns(id: string): boolean {
    return LOGIN_ID.test(id)
  }

  async list(userId: unknown, context: DeviceContext): Promise<Device[]> {
    const rows = (await this.db()(this.table)
      .where('user_id', userId as number)
      .select('id', 'token_hash', 'ip', 'user_agent', 'created_at', 'last_used_at')) as Record<string, unknown>[]
    return rows.map((row) => {
      const userAgent = typeof row.user_agent === 'string' ? row.user_agent : null
      return {
        id: String(row.id),
        kind: this.kind,
        createdAt: date(row.created_at),
        lastUsedAt: date(row.last_used_at) ?? date(row.created_at),
        ip: typeof row.ip === 'string' && row.ip !== '' ? row.ip : null,
        userAgent,
        client: describeUserAgent(userAgent),
        current: context.currentLoginHash !== null && row.token_hash === context.currentLoginHash,
      }
    })
  }

  async revoke(userId: unknown, id: string, context: DeviceContext): Promise<RevokedDevice | null> {
    if (!this.owns(id)) return null
    return this.db().transaction(async (trx) => {
      const row = (await trx(this.table).where({ id: Number(id), user_id: userId as number }).first('token_hash')) as { token_hash: string } | undefined
      if (!row) return null
      // Only the request whose delete removed the row reports it (two clicks at once: one wins).
      const deleted = await this.inventory.revokeOne(userId, 'logins', id, trx)
      if (deleted === 0) return null
      return { count: deleted, current: context.currentLoginHash === row.token_hash }
    })
  }
}

/** User agents longer than this are cut before parsing (the tables keep 255 characters anyway). */
const MAX_USER_AGENT = 512

/**
 * A user agent in plain words: "Firefox 132 on Windows", "Safari 17 on iOS". A client that is not
 * a known browser is named by its first product token ("curl/8.5.0"); none at all is
 * "Unknown device". The result is text: templates escape it like any other value.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = typeof userAgent === 'string' ? userAgent.trim().slice(0, MAX_USER_AGENT) : ''
  if (ua === '') return 'Unknown device'
  let browser = ''
  let version = ''
  let os = ''
  try {
    const parsed = bowser().parse(ua)
    browser = parsed.browser.name ?? ''
    version = (parsed.browser.version ?? '').split('.')[0] ?? ''
    os = parsed.os.name ?? ''
  } catch {
    // An agent the parser cannot read is described from its first token below.
  }
  if (browser === '') {
    const product = ua.split(/[\s(;]/)[0] ?? ''
    // "Mozilla/5.0" alone says nothing: every browser sends it.
    browser = product === '' || /^mozilla\//i.test(product) ? 'Unknown browser' : product.slice(0, 60)
    version = ''
  }
  const name = version !== '' && /^\d+$/.test(version) ? `${browser} ${version}` : browser
  return os !== '' ? `${name} on ${os}` : name
}

/** A date as the pages show it: `2025-01-31 14:05 UTC`. */
export function formatWhen(at: Date | null): string {
  if (!at) return '—'
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
