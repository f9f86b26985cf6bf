/**
 * A small OpenID-Connect-shaped provider for the refusal tests of social login, built with `jose`
 * on real HTTP with real signatures: discovery, JWKS, an authorization endpoint that redirects back
 * at once with a code (for the subject `peer.next`), and a token endpoint (client secret and PKCE
 * S256 checked, each code once). Unlike a certified provider it can be told to mint a defective
 * ID token (`peer.defect`): from another issuer, for another audience, expired, signed by another
 * key (same `kid`), unsigned (`alg: none`), with a wrong `nonce`; or to answer the authorization
 * with `error=access_denied`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'

export type ForgeDefect = 'none' | 'issuer' | 'audience' | 'expired' | 'key' | 'alg_none' | 'nonce' | 'denied'

export interface ForgeClaims {
  email?: string
  email_verified?: boolean
  name?: string
}

export interface ForgePeer {
  issuer: string
  /** The subject the next authorization is for. */
  next: string
  /** The defect of the next ID token ('none': a good one). */
  defect: ForgeDefect
  accounts: Map<string, ForgeClaims>
  /** A key rotation: a new signing key under a new `kid`, published beside the old one. */
  rotate(): Promise<void>
  /** Follows the authorization URL to the app: the callback's path and query. */
  roundTrip(authorizeUrl: string): Promise<string>
  close(): Promise<void>
}


export async function startForgePeer(client: { clientId: string; clientSecret: string }): Promise<ForgePeer> {
  const rogue = await generateKeyPair('RS256')
  const published: Record<string, unknown>[] = []
  let good = await generateKeyPair('RS256')
  let kid = ''
  const rotate = async () => {
    good = await generateKeyPair('RS256')
    kid = `forge-key-${published.length + 1}`
    published.push({ ...(await exportJWK(good.publicKey)), kid, alg: 'RS256', use: 'sig' })
  }
  await rotate()
  const codes = new Map<string, { subject: string; redirect: string; challenge: string; nonce: string; defect: ForgeDefect }>()
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    res.end(JSON.stringify(body))
  }
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => resolve(body))
    })

  async function idToken(grant: { subject: string; nonce: string; defect: ForgeDefect }): Promise<string> {
    const now = Math.floor(Date.now() / 1000)
    // auth_time: every authorization here is a fresh login (what `max_age=0` asks for).
    const claims = { ...(peer.accounts.get(grant.subject) ?? {}), auth_time: now, nonce: grant.defect === 'nonce' ? 'not-the-nonce-that-was-sent' : grant.nonce }
    const iss = grant.defect === 'issuer' ? 'http://127.0.0.1:1' : peer.issuer
    const aud = grant.defect === 'audience' ? 'someone-else' : client.clientId
    const [iat, exp] = grant.defect === 'expired' ? [now - 7200, now - 3600] : [now, now + 300]
    if (grant.defect === 'alg_none') {
      const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
      return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...claims, iss, aud, sub: grant.subject, iat, exp })}.`
    }
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(iss)
      .setAudience(aud)
      .setSubject(grant.subject)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(grant.defect === 'key' ? rogue.privateKey : good.privateKey)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', peer.issuer)
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: peer.issuer,
        authorization_endpoint: `${peer.issuer}/authorize`,
        token_endpoint: `${peer.issuer}/token`,
        jwks_uri: `${peer.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      })
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: published })
    if (url.pathname === '/authorize') {
      const q = url.searchParams
      const back = new URL(q.get('redirect_uri') ?? '')
      if (peer.defect === 'denied') {
        back.searchParams.set('error', 'access_denied')
      } else {
        const code = randomBytes(16).toString('hex')
        codes.set(code, { subject: peer.next, redirect: q.get('redirect_uri') ?? '', challenge: q.get('code_challenge') ?? '', nonce: q.get('nonce') ?? '', defect: peer.defect })
        back.searchParams.set('code', code)
      }
      back.searchParams.set('state', q.get('state') ?? '')
      res.writeHead(302, { location: back.href })
      res.end()
      return
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req))
      const grant = codes.get(form.get('code') ?? '')
      codes.delete(form.get('code') ?? '')
      const ok =
        grant &&
        form.get('client_id') === client.clientId &&
        form.get('client_secret') === client.clientSecret &&
        form.get('redirect_uri') === grant.redirect &&
        createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === grant.challenge
      if (!ok) return json(res, 400, { error: 'invalid_grant' })
      return json(res, 200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: await idToken(grant) })
    }
    json(res, 404, { error: 'not_found' })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { error: String(error) }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const peer: ForgePeer = {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: '',
    defect: 'none',
    accounts: new Map(),
    rotate,
    async roundTrip(authorizeUrl) {
      const r = await fetch(authorizeUrl, { redirect: 'manual' })
      const location = r.headers.get('location')
      if (!location) throw new Error(`the forge answered ${r.status} at ${authorizeUrl}`)
      return location.replace(/^https?:\/\/[^/]+/, '')
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  return peer
}
