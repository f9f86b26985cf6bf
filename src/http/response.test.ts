import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { Response } from './response.js'
import { CookieJar } from './cookie-jar.js'
import { send } from './send.js'

const newResponse = () => new Response({ cookies: new CookieJar('k'.repeat(40)), secure: false, urlFor: () => '/' })

/** What `send()` hands to node's response. */
function sent(response: Response): { status: number; headers: Record<string, string | string[]> } {
  let out: { status: number; headers: Record<string, string | string[]> } | undefined
  const res = {
    headersSent: false,
    destroyed: false,
    writeHead(status: number, _text: string | undefined, headers: Record<string, string | string[]>) {
      out = { status, headers }
    },
    end() {},
  }
  send(res as unknown as ServerResponse, response, false)
  return out!
}

test('a response that sets no cookie sends no Set-Cookie', () => {
  const response = newResponse().json({ ok: true })
  assert.equal(response.setCookieValues(), undefined)
  assert.equal(sent(response).headers['set-cookie'], undefined)
  // Asking for the map does not add a header either.
  assert.equal(response.cookies.size, 0)
  assert.equal(sent(response).headers['set-cookie'], undefined)
})

test('cookies set, replaced and cleared are sent once each, in the order first set', () => {
  const response = newResponse().json({ ok: true })
  response.cookie('a', '1', { protect: false }).cookie('b', '2', { protect: false }).cookie('a', '3', { protect: false }).clearCookie('c')
  const header = sent(response).headers['set-cookie'] as string[]
  assert.equal(header.length, 3)
  assert.match(header[0]!, /^a=3; /)
  assert.match(header[1]!, /^b=2; /)
  assert.match(header[2]!, /^c=; Max-Age=0; /)
  assert.deepEqual(response.setCookieValues(), header)
  response.cookies.clear()
  assert.equal(response.setCookieValues(), undefined)
})
