/**
 * @module auth/passkeys/install
 * The `passkeys` feature's binding (its module's `register`): `auth.passkeys`, the
 * relying party read from `config/application.ts` (`APPLICATION.url`, else APP_URL: the RP ID is
 * its hostname, the only origin accepted is its origin; `APPLICATION.name`, else APP_NAME, is the
 * name authenticators show). Bound whatever the features, so other features can ask whether a
 * user has passkeys; built on first use.
 */
import { appName, appUrl, DEFAULT_APP_URL } from '../../foundation/config-files.js'
import type { Application } from '../../foundation/application.js'
import { connectionOf } from '../../database/app-database.js'
import { decodeAppKey } from '../../http/cookie-jar.js'
import { Passkeys, type RelyingParty } from './passkeys.js'


/** The relying party of `app`: APP_URL's hostname and origin, APP_NAME. */
export function relyingPartyOf(app: Application): RelyingParty {
  let url: URL
  try {
    url = new URL(appUrl(app))
  } catch {
    url = new URL(DEFAULT_APP_URL)
  }
  const name = appName(app)
  return { id: url.hostname.replace(/^\[|\]$/g, ''), origin: url.origin, name }
}

export function registerPasskeys(app: Application): void {
  app.singleton('auth.passkeys', () => {
    const rp = relyingPartyOf(app)
    return new Passkeys({ db: () => connectionOf(app), challenges: app.make('auth.challenges'), relyingParty: () => rp, appKey: decodeAppKey(process.env.APP_KEY ?? '') })
  })
}

declare module '../../container/bindings.js' {
  interface ContainerBindings {
    /** Passkeys (WebAuthn): the ceremonies, the user's list, removal. */
    'auth.passkeys': Passkeys
  }
}
