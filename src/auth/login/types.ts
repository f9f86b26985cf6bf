/**
 * @module auth/login/types
 * The shapes of the login flow (see flow.ts): how a login was proven (`LoginMethod`), what a
 * method hands the flow once it has proven who the user is (`LoginAttempt`), and the flow's
 * answers. Types only: guards and features import them without importing the flow.
 */
import type { EventMap } from '../../events/event-map.js'
import type { HttpContext } from '../../http/context.js'
import type { AuthEventBase } from '../events.js'
import type { AuthUser } from '../types.js'

/**
 * A step between a correct password and the login (a second factor, say): it returns to let the
 * login happen, or throws (an HttpError the route answers with) to hold it back. Registered on
 * the AuthManager (`manager.challenges`), run by every guard's `attempt()` in order.
 */
export type LoginChallenge = (ctx: HttpContext, guard: string, user: AuthUser) => Promise<void> | void

/** How a login was proven; sent as `method` on `auth:login_succeeded`. */
export type LoginMethod = 'password' | 'passkey' | 'social' | 'email_link' | 'email_code' | 'remember' | 'id'

export interface LoginAttempt {
  /** Already proven by the method. */
  user: AuthUser
  method: LoginMethod
  /** RFC 8176 method references of what was shown: `['pwd']`, `['social']`, `['email']`, `['webauthn']`, `[]`. */
  amr: readonly string[]
  /** "Remember me" was asked (honoured with the `remember_me` feature, web only). */
  remember?: boolean
  /** A same-site path to land on (web only; default `/home`). */
  next?: string | null
  /** Extra fields for `auth:login_succeeded` (`provider`, ...); never secrets. */
  details?: Record<string, unknown>
}

/** A login held back for its second step, as the session keeps it (the second step's feature adds its own fields). */
export interface HeldLogin {
  userId: string | number
  guard: string
  remember: boolean
  next: string | null
  /** When the first step was proven (epoch ms): a password's confirmation time. */
  createdAt: number
  method?: LoginMethod
  amr?: string[]
  details?: Record<string, unknown>
}

/**
 * A second factor a feature lets users answer with (its module's `secondFactor`): the `mfa`
 * middleware steps up a user who has one, and sends a user who has none to the page of the first
 * feature on that offers one.
 */
export interface SecondFactor {
  /** Whether the user has this factor (TOTP turned on, a passkey). */
  enrolled(userId: unknown): Promise<boolean>
  /** The page where a user sets it up. */
  readonly enrolPage: string
  /** The flag the account and home pages get, true when the user has it. */
  readonly pageFlag?: string
}

/**
 * The payload of the event a refused second-factor answer emits: `method` is what was answered
 * with (`totp`, `recovery_code`, `passkey`); `repeated` marks the answer that calls for a notice.
 */
export type SecondFactorFailure = AuthEventBase & { user: AuthUser | null; method: string; repeated?: boolean }

/** The events a `SecondFactorFailure` can be emitted as (the second step's feature names one: `secondStep.failedEvent`). */
export type SecondFactorFailedEvent = { [K in keyof EventMap]: SecondFactorFailure extends EventMap[K] ? K : never }[keyof EventMap]

/** What a web login came to: logged in (go to `redirect`), or waiting for its second factor. */
export type WebLoginOutcome = { status: 'logged_in'; redirect: string } | { status: 'challenge'; redirect: string }

/** The API's token response. */
export interface TokenResponseBody {
  data: string
}

declare module '../../http/context.js' {
  interface RequestState {
    /** The attempt a login challenge is run for (the API's `mfa_token` keeps its method and amr). */
    loginAttempt?: LoginAttempt
  }
}
