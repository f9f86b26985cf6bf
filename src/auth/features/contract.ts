/**
 * @module auth/features/contract
 * The contract every auth feature implements: one module per feature folder (`feature.ts`),
 * listed once in `features/index.ts`. The list reaches the core at boot, bound as
 * `auth.features` by whoever builds the app (app/auth-features-provider.ts); the core reads it
 * for everything a feature adds — its name in `GUARDS.features`, the features it needs, its
 * `GUARDS.throttle` budgets and `GUARDS.notifications` names, its web and API routes, its
 * inventory kinds, its boot, its route middleware and the files `craft auth` writes for it — so
 * a feature touches no shared file. A leaf: it imports types only, none of a module that
 * imports it or the list, so the core and the features both import it without a cycle.
 */
import type { Knex } from 'knex'
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import type { MiddlewareClass } from '../../http/middleware.js'
import type { RouteDefinition } from '../../routing/route-definition.js'
import type { BudgetLimit, NotificationName, ResolvedAuthConfig } from '../auth-config.js'
import type { AuthInventory, InventoryKind } from '../inventory/index.js'
import type { LoginChallenge, SecondFactor, SecondFactorFailedEvent } from '../login/types.js'
import type { SecurityNoticeKind } from '../mail/default-security-notice.js'
import type { AuthUser } from '../types.js'

/** What `craft auth` writes for a feature (file names, relative to the folders named). */
export interface FeatureScaffold {
  /** Migration stubs of `stubs/migrations/` (without `.ts`), in the order they run. */
  readonly migrations?: readonly string[]
  /** Controllers of `stubs/auth/controllers/` (written to `app/controllers/auth/`). */
  readonly controllers?: readonly string[]
  /** Mailables of `stubs/auth/mailables/` (written to `app/mailables/`). */
  readonly mailables?: readonly string[]
  /** Page templates of `templates/auth/`. */
  readonly templates?: readonly string[]
  /** E-mail templates of `templates/mailables/auth/`. */
  readonly mailTemplates?: readonly string[]
}

/** What `Api.routes()` hands the API routes of the login's second step (`secondStep.apiRoutes`). */
export interface ApiSecondStepContext {
  /** The API's auth route (`/api/auth`): the second step's routes go under it. */
  readonly authRoute: string
  /** The guard the API issues tokens with (`jwt`): the second step finishes the login on it. */
  readonly guard: string
  /** The user of that guard's provider with this primary key, or null. */
  user(ctx: HttpContext, id: string): Promise<AuthUser | null>
}

/**
 * The login's second step, which `mfa` also steps a login up on. Served whenever a feature
 * offering a `secondFactor` is on, whether or not the one that has it is (by the first feature of
 * the list that has it).
 */
export interface SecondStep {
  /** Its page (`manager.secondStepPage`). */
  readonly page: string
  /** The page's routes, listed after those of the first feature on that offers a second factor. */
  routes(): RouteDefinition[]
  /**
   * The API login's second step (where a login answered 401 `E_MFA_REQUIRED` gets its token),
   * listed by `Api.routes()` right after its auth route whatever the features, by the first
   * feature of the list that has them (with none on that holds a login back, no `mfa_token`
   * exists and every answer is refused).
   */
  apiRoutes?(api: ApiSecondStepContext): RouteDefinition[]
  /**
   * The event any refused second-factor answer emits, whichever feature's factor it was
   * (`manager.secondStepFailedEvent`; `emitSecondFactorFailed` of auth/login emits it).
   */
  readonly failedEvent?: SecondFactorFailedEvent
}

/** A web form, as `craft openapi --web` describes it (see `FeatureOpenApi`). */
export interface WebFormDoc {
  /** The fields it reads (without them, a free-form object). */
  readonly fields?: { readonly required?: string[]; readonly properties: Record<string, unknown> }
  /** It takes slots of a budget (429 `E_TOO_MANY_REQUESTS`). */
  readonly throttled?: boolean
  /** 401 `E_UNAUTHORIZED` though not behind `auth` (it wants a login waiting for it). */
  readonly unauthorized?: boolean
}

/**
 * What the OpenAPI document (`craft openapi`, `GET /api/openapi.json`) says of a feature's
 * routes, by route name, beside the core's; a route that is not mounted is not described.
 */
export interface FeatureOpenApi {
  /** Operations of its API routes, as the core's (`api/openapi/token-operations.ts`): without path, method and the errors every operation shares. */
  readonly operations?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** Its web forms (`--web`). */
  readonly forms?: Readonly<Record<string, WebFormDoc>>
  /** Where a login answered `E_MFA_REQUIRED` goes on, when its second step is this feature's (the first of the list that says). */
  readonly mfaRequired?: MfaRequiredDoc
}

/** The words the OpenAPI document explains `E_MFA_REQUIRED` with (see `FeatureOpenApi.mfaRequired`). */
export interface MfaRequiredDoc {
  /** In `POST /login`'s 401, after the wrong password: a clause naming the code and where to answer. */
  readonly webLogin: string
  /** In the token route's 401, after the wrong password: a clause naming the code and where to send the `mfa_token`. */
  readonly tokenLogin: string
  /** The `MfaChallenge` schema (that 401's body). */
  readonly challenge: string
  /** The `MfaRequired` response (a route behind `mfa` refusing a token). */
  readonly stepUp: string
}

/** The payload of an event, as a security e-mail reads it. */
export type NoticeEvent = Readonly<Record<string, unknown>>

/** The security e-mail one of a feature's events sends (accounts/security-notifications.ts sends it). */
export interface SecurityNoticeRule {
  /** The `GUARDS.notifications` switch that turns it on. */
  readonly notification: NotificationName
  /** `SecurityNotice.kind` (add it by augmenting `SecurityNoticeKinds`). */
  readonly kind: SecurityNoticeKind
  readonly subject: string
  /** One sentence: what happened. */
  summary(event: NoticeEvent): string
  /** False: this event does not call for a notice. */
  when?(event: NoticeEvent): boolean
  /** The way in it reports as added when the event carries no `item` (the "This wasn't me" link removes it). */
  item?(event: NoticeEvent, userId: unknown): { kind: string; id: string } | null
}

export interface AuthFeatureModule {
  /** Its name in `GUARDS.features` ('passkeys', 'social', 'organizations', ...). */
  readonly name: string
  /** Written into `GUARDS.features` of new apps (the generated config/auth.ts). */
  readonly generated?: boolean
  /** Features it needs on (checked at boot, with a message naming both). */
  readonly requires?: readonly string[]
  /**
   * Default limits of the `GUARDS.throttle` budgets it owns (a list: each limit its own window).
   * They exist whether or not the feature is on (another feature may take slots of them).
   */
  readonly budgets?: Readonly<Record<string, BudgetLimit | readonly BudgetLimit[]>>
  /** The `GUARDS.notifications` names it owns (on in new apps). */
  readonly notifications?: readonly string[]
  /**
   * The events it emits (declared in its folder by augmenting `EventMap`) and each one's log
   * level: each is logged as `auth.<name>` (`auth:passkey_added` → `auth.passkey_added`) and
   * recorded in the audit log, whether or not the feature is on.
   */
  readonly events?: Readonly<Record<string, 'info' | 'warn'>>
  /** Its events in plain words on the account's activity page (`auth:passkey_added` → 'Passkey added'). */
  readonly activityLabels?: Readonly<Record<string, string>>
  /** The security e-mails its events send, by event name (each on when its `GUARDS.notifications` switch is). */
  readonly securityNotices?: Readonly<Record<string, SecurityNoticeRule>>
  /**
   * Its errors module (`import * as errors from './errors.js'`): the error catalogue test walks
   * every feature's, so each class and code must be in docs/errors.md.
   */
  readonly errors?: Readonly<Record<string, unknown>>
  /**
   * Its web routes, added by `Auth.routes()` when it is on; `on` = the features that are on,
   * `app` = the application whose routes are being mounted (booted: its services are bound).
   */
  routes?(on: ReadonlySet<string>, app: Application): RouteDefinition[]
  /**
   * Its API routes, added by `Api.routes()` under the API's auth route when it is on: plain
   * `Route.post(path, handler).name(...)`; the API makes them JSON, outside `web`, CSRF-exempt.
   */
  apiRoutes?(api: { authRoute: string }, app: Application): RouteDefinition[]
  /** Its kinds of the inventory; registered whether or not it is on (old items must still end). */
  inventory?(inventory: AuthInventory, auth: ResolvedAuthConfig): InventoryKind[]
  /**
   * Bindings that exist whatever the features (built on first use): a service other code may ask
   * about while the feature is off (a user's passkeys, a console command turning TOTP off).
   */
  register?(app: Application): void
  /** A step every guard's `attempt()` runs after a correct password and before the login, when on (throw to hold it back). */
  loginChallenge?(app: Application): LoginChallenge
  /** A second factor it offers, when on (`mfa` asks a user who has one for it, and sends one who has none to enrol). */
  secondFactor?(app: Application): SecondFactor
  /** The login's second step (see `SecondStep`). */
  readonly secondStep?: SecondStep
  /** Boot when on: bind services, read its config slice (a mistake throws AuthConfigError naming the key). */
  install?(app: Application, auth: ResolvedAuthConfig): void | Promise<void>
  /**
   * Session keys it keeps for one login (an unfinished enrolment, codes waiting to be shown): the
   * web guard forgets them with the login's own state when the session meets another login.
   */
  readonly loginSessionKeys?: readonly string[]
  /** Route middleware names it adds to the kernel's `routeMiddleware` when on and absent there. */
  readonly middleware?: Readonly<Record<string, MiddlewareClass[]>>
  /** Rows past their life in the tables it owns, deleted by `craft auth:prune` (whether or not it is on). */
  readonly prune?: readonly PruneRule[]
  /** What the OpenAPI document says of its routes (read from every feature of the list, on or not). */
  readonly openapi?: FeatureOpenApi
  /** What `craft auth` writes for it. */
  readonly scaffold?: FeatureScaffold
}

/**
 * What `craft auth:prune` (and `craft serve`'s hourly housekeeping) removes from one table: the
 * rows `expired` selects are deleted; then `tidy`, if any, runs on the table (an update that clears
 * what outlived its use in rows that stay). Skipped when the app does not have the table.
 */
export interface PruneRule {
  readonly table: string
  expired(query: Knex.QueryBuilder, now: Date): Knex.QueryBuilder
  tidy?(query: Knex.QueryBuilder, now: Date): Knex.QueryBuilder
}

/** Declares a feature (checks the name's shape; the core checks the rest when it reads the list). */
export function defineFeature<F extends AuthFeatureModule>(feature: F): F {
  if (!/^[a-z][a-z0-9_]*$/.test(feature.name)) throw new Error(`An auth feature's name must be snake_case, got ${JSON.stringify(feature.name)}.`)
  return Object.freeze(feature)
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** The app's auth feature modules, in list order (bound by the composition before AuthProvider registers). */
    'auth.features': readonly AuthFeatureModule[]
    /** Prune rules of tables other packages own (the JWT API's), beside the auth features' own. */
    'auth.prune.rules': readonly PruneRule[]
  }
}
