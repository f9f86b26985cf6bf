/**
 * @module auth/passkeys/client-bundle
 * `GET /passkeys/client.js`: @simplewebauthn/browser's browser build (read once from the installed
 * package, no CDN) followed by the passkey page script (client-script.ts), as one file
 * (served by http/script-asset: cached, with an ETag).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { servedScript } from '../../http/script-asset.js'
import { PASSKEY_CLIENT_SCRIPT } from './client-script.js'

/** The library's ES2021 UMD build: `<package>/dist/bundle/index.umd.min.js` (the package exports only its entry). */
async function load(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser')
  // The entry is `<package>/script/index.js`.
  const library = await readFile(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8')
  return `${library}\n${PASSKEY_CLIENT_SCRIPT}`
}

const script = servedScript(load)

/** The script and its ETag, read and cached on first use. */
export const passkeyClientBundle = script.load

/** The route handler of `GET /passkeys/client.js`. */
export const servePasskeyClient = script.serve
