/**
 * @module auth/pages/page-bundle
 * `GET /auth/pages.js`: the auth pages' script (page-script.ts) with the `@zxcvbn-ts/core`
 * password-strength estimator and the `@zxcvbn-ts/language-common` dictionaries, bundled for the
 * browser by esbuild (served by the app: nothing from a CDN; about 460 KB minified, 230 KB gzipped;
 * fetched only by the auth pages and cached).
 *
 * The package's build writes the script to `dist/assets/auth-pages.js` (scripts/build.mjs), headed
 * by what it was made from; a process reads that file, and builds the script itself (about 130 ms
 * and 0.2 s of CPU, esbuild's service included) only when the file is missing or was made from
 * another page script or other versions of esbuild or zxcvbn.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { servedScript } from '../../http/script-asset.js'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { readPrebuilt } from '../../support/prebuilt.js'
import { PAGE_SCRIPT } from './page-script.js'

/** Where the package's build writes the script. */
export const PREBUILT_PAGE_SCRIPT = join(FRAMEWORK_ROOT, 'dist', 'assets', 'auth-pages.js')

/**
 * The estimator, made from the common dictionaries and keyboard graphs when a page first needs it
 * (making it ranks every word of the dictionaries: about 0.3 s of a desktop core), so a page
 * with a password field nobody types in (the account page) never pays; then the page script.
 */
const ENTRY = `
import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import { dictionary, adjacencyGraphs } from '@zxcvbn-ts/language-common'
var ZXCVBN = (function () {
  var made = null;
  function estimator() { return made || (made = new ZxcvbnFactory({ dictionary: dictionary, graphs: adjacencyGraphs })); }
  return { prepare: function () { estimator(); }, check: function (value) { return estimator().check(value); } };
})();
${PAGE_SCRIPT}
`

/** The first line of a prebuilt script: a digest of the entry and of the versions of the packages it is built with. */
export function pageScriptHeader(): string {
  const require = createRequire(import.meta.url)
  const hash = createHash('sha256').update(ENTRY)
  for (const name of ['esbuild', '@zxcvbn-ts/core', '@zxcvbn-ts/language-common']) {
    hash.update(`\0${name}@${(require(`${name}/package.json`) as { version: string }).version}`)
  }
  return `/* trowel auth pages script ${hash.digest('hex')} */`
}

/** The script, bundled now by esbuild. */
export async function buildPageScript(): Promise<string> {
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: dirname(fileURLToPath(import.meta.url)), loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2019',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  })
  // Escaped so no string in the dictionaries can end a script element.
  return result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1')
}

/** The prebuilt script at `path` when it was made from these inputs, else one built now. */
export async function loadPageScript(path = PREBUILT_PAGE_SCRIPT): Promise<string> {
  return readPrebuilt(path, (header) => header === pageScriptHeader()) ?? buildPageScript()
}

const script = servedScript(() => loadPageScript())

/** The script and its ETag, built and cached on first use. */
export const pageScriptBundle = script.load

/** The route handler of `GET /auth/pages.js`. */
export const servePageScript = script.serve
