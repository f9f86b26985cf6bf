/**
 * A small GitHub-shaped OAuth 2.0 server for the social-login tests (GitHub is not OpenID
 * Connect): `/login/oauth/authorize` redirects back with a code at once, `/login/oauth/access_token`
 * exchanges it (checking the client, the redirect URI and PKCE S256), and `/api/v3/user` and
 * `/api/v3/user/emails` answer for its bearer token with what the test set in `users`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GithubUser {
  id: number
  login: string
  name: string | null
  emails: { email: string; primary: boolean; verified: boolean }[]
}

export interface GithubPeer {
  url: string
  /** The user the next authorization is for. */
  next: number
  users: Map<number, GithubUser>
  close(): Promise<void>
}

export async function startGithubPeer(client: { clientId: string; clientSecret: string }): Promise<GithubPeer> {
  const codes = new Map<string, { user: number; redirect: string; challenge: string }>()
  const tokens = new Map<string, number>()
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/login/oauth/authorize') {
      const code = randomBytes(16).toString('hex')
      codes.set(code, { user: peer.next, redirect: url.searchParams.get('redirect_uri') ?? '', challenge: url.searchParams.get('code_challenge') ?? '' })
      const back = new URL(url.searchParams.get('redirect_uri') ?? '')
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state') ?? '')
      res.writeHead(302, { location: back.href })
      res.end()
      return
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const form = new URLSearchParams(body)
        const grant = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const ok =
          grant &&
          form.get('client_id') === client.clientId &&
          form.get('client_secret') === client.clientSecret &&
          form.get('redirect_uri') === grant.redirect &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge
        if (!ok) return json(res, 200, { error: 'bad_verification_code' })
        const token = `gho_${randomBytes(16).toString('hex')}`
        tokens.set(token, grant.user)
        json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' })
      })
      return
    }
    const user = peer.users.get(tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, '')) ?? -1)
    if (!user) return json(res, 401, { message: 'Bad credentials' })
    if (url.pathname === '/api/v3/user') return json(res, 200, { id: user.id, login: user.login, name: user.name })
    if (url.pathname === '/api/v3/user/emails') return json(res, 200, user.emails)
    json(res, 404, { message: 'Not Found' })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const peer: GithubPeer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: 0,
    users: new Map(),
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  return peer
}
