/**
 * @module auth/account-pages/device-forms
 * What the generated DevicesController does: the devices page (`GET /account/devices`), logging
 * one device out (`POST /account/devices/@id/revoke`) and every other one
 * (`POST /account/devices/revoke-others`, behind `password.confirm`). All behind `auth`.
 */
import type { HttpContext } from '../../http/context.js'
import { answerData } from '../../session/json-forms.js'
import { NotFoundError } from '../../http/errors.js'
import { sha256Hex } from '../tokens/index.js'
import { eventBase } from '../events.js'
import { AUTH_COOKIE, REMEMBER_COOKIE } from '../guards/web/types.js'
import { rotateCurrentLogin, WebGuard } from '../guards/web/guard.js'
import { devicesOf, formatWhen, type DeviceContext } from '../accounts/devices.js'

export const DEVICE_MESSAGES = {
  revoked: 'Device logged out.',
  revokedOthers: (count: number) => (count === 1 ? '1 other device logged out.' : `${count} other devices logged out.`),
  loggedOut: 'You have been logged out.',
} as const

/**
 * SHA-256 of this request's web login token (`login_tokens.token_hash` of this login), or null:
 * the web guard's (which knows a login restored by "remember me" in this request), else the cookie's.
 */
export function currentLoginHash(ctx: HttpContext): string | null {
  try {
    const guard = ctx.auth.resolve(ctx.auth.manager.resolved.defaultGuard)
    if (guard instanceof WebGuard) return guard.loginTokenHash
  } catch {
    // No such guard: the cookie says.
  }
  const token = ctx.request.cookie(AUTH_COOKIE)
  return typeof token === 'string' && token !== '' ? sha256Hex(token) : null
}

function deviceContext(ctx: HttpContext): DeviceContext {
  return { currentLoginHash: currentLoginHash(ctx) }
}


export const DeviceForms = {
  /** GET /account/devices: each login with created, last used, IP, browser and "This device". */
  async index(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const devices = await devicesOf(ctx.auth.manager).list(user.getKey(), deviceContext(ctx))
    ctx.response.header('Cache-Control', 'no-store')
    if (ctx.request.wantsJson()) {
      return {
        data: devices.map((d) => ({ id: d.id, kind: d.kind, created_at: d.createdAt, last_used_at: d.lastUsedAt, ip: d.ip, client: d.client, current: d.current })),
      }
    }
    const rows = devices.map((d) => ({ ...d, created: formatWhen(d.createdAt), lastUsed: formatWhen(d.lastUsedAt), createdIso: d.createdAt?.toISOString() ?? '', lastUsedIso: d.lastUsedAt?.toISOString() ?? '' }))
    return ctx.view.render('auth/devices', { user, devices: rows, others: rows.filter((d) => !d.current).length })
  },

  /**
   * POST /account/devices/@id/revoke: ends one of the user's own logins (and its "remember me"
   * token); an unknown id, or another user's, is a 404 and ends nothing. Ending the device making
   * the request is logging out: 302 to /login.
   */
  async revoke(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const id = String(ctx.params.id ?? '')
    const done = await devicesOf(ctx.auth.manager).revoke(user.getKey(), id, deviceContext(ctx))
    if (!done) throw new NotFoundError()
    ctx.app.events.emit('auth:device_revoked', { ...eventBase(ctx, ctx.auth.guardName, user), device: id, count: done.count })
    if (done.current) {
      // This login's row is gone already; logout() clears the cookie, ends the session and emits auth:logout.
      await ctx.auth.logout()
      ctx.response.clearCookie(REMEMBER_COOKIE)
      ctx.session.flash('success', DEVICE_MESSAGES.loggedOut)
      return ctx.response.redirect('/login')
    }
    ctx.session.flash('success', DEVICE_MESSAGES.revoked)
    return ctx.response.redirect('/account/devices')
  },

  /** POST /account/devices/revoke-others (behind `password.confirm`): every login but this one ends. */
  async revokeOthers(ctx: HttpContext): Promise<unknown> {
    const user = await ctx.auth.authenticate()
    const counts = await ctx.auth.manager.inventory.revokeAll(user.getKey(), { reason: 'logout_others', keepLoginHash: currentLoginHash(ctx) })
    // Logins and API tokens count once each; a device's "remember me" token ends with its login.
    const count = (counts.logins ?? 0) + (counts.api_tokens ?? 0)
    ctx.app.events.emit('auth:device_revoked', { ...eventBase(ctx, ctx.auth.guardName, user), device: 'others', count })
    // A stolen copy of this browser's cookies is one of the "other devices" too.
    await rotateCurrentLogin(ctx)
    const message = DEVICE_MESSAGES.revokedOthers(count)
    answerData(ctx, { count })
    ctx.session.flash('success', message)
    return ctx.response.redirect('/account/devices')
  },
}
