/**
 * A real OpenID Provider for the social-login suites: oidc-provider (certified) in this process
 * on 127.0.0.1, one confidential client per registration, accounts whose claims the test
 * controls, and a tiny interaction that logs in the account named by `peer.next` and grants
 * what was asked (no login or consent pages). `roundTrip` walks a browser from the app's
 * authorization URL through the provider to the app's callback URL.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { Client } from './http-client.js'

export interface PeerAccount {
  email?: string
  email_verified?: boolean
  name?: string
}

export interface PeerClient {
  clientId: string
  clientSecret: string
  redirectUris: string[]
}

export interface OidcPeer {
  issuer: string
  /** The account the next interaction logs in. */
  next: string
  accounts: Map<string, PeerAccount>
  /** Follows the provider's redirects from `authorizeUrl` to the app: the callback's path and query. */
  roundTrip(authorizeUrl: string, browser?: Client): Promise<string>
  close(): Promise<void>
}

/**
 * `idTokenClaims`: the scope's claims (email, name) in the ID token too, as native SDKs get them;
 * by default they are only at UserInfo (oidc-provider's conformIdTokenClaims), which the web flow
 * must then fetch.
 */
export async function startOidcPeer(clients: PeerClient[], options: { idTokenClaims?: boolean } = {}): Promise<OidcPeer> {
  const accounts = new Map<string, PeerAccount>()
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        res.statusCode = 500
        res.end(String(error))
      })
      return
    }
    provider.callback()(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const peer: OidcPeer = {
    issuer,
    next: '',
    accounts,
    async roundTrip(authorizeUrl, browser = new Client(issuer)) {
      let url = authorizeUrl
      for (let hop = 0; hop < 12; hop++) {
        if (!url.startsWith(issuer)) return url.replace(/^https?:\/\/[^/]+/, '')
        const r = await browser.get(url.slice(issuer.length))
        if (!r.location) throw new Error(`the provider answered ${r.status} at ${url}: ${r.text.slice(0, 300)}`)
        url = new URL(r.location, url).href
      }
      throw new Error('too many redirects at the provider')
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ client_id: c.clientId, client_secret: c.clientSecret, redirect_uris: c.redirectUris, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' })),
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id)
      if (!account) return undefined
      return { accountId: id, claims: async () => ({ sub: id, ...account }) }
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['trowel-test-oidc-peer-cookie-key'] },
    pkce: { required: () => true },
    conformIdTokenClaims: !options.idTokenClaims,
  })
  provider.on('server_error', () => {})

  async function interact(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res)
    const { prompt, params, session } = details
    if (prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: peer.next } }, { mergeWithLastSubmission: false })
      return
    }
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) })
    grant!.addOIDCScope(String(params.scope))
    const missing = (prompt.details as { missingOIDCClaims?: string[] }).missingOIDCClaims
    if (missing) grant!.addOIDCClaims(missing)
    const grantId = await grant!.save()
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
  }

  return peer
}
