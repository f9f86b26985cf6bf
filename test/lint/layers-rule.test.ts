/**
 * The dependency rule of src/ in `npm run lint` (eslint.config.js, scripts/eslint-rules/layers.js):
 * each case lints a few lines as if they were a file of src/ and checks the rule fires, or not.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ESLint } from 'eslint'

const ROOT = new URL('../..', import.meta.url).pathname
const eslint = new ESLint({ cwd: ROOT })

/** The messages of the rules under test for `code` linted as `src/<path>`. */
async function messages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}src/${path}` })
  return result!.messages.filter((m) => m.ruleId === 'trowel/layers' || m.ruleId === 'max-lines').map((m) => m.message)
}

describe('the dependency rule of src/', () => {
  it('refuses an upward import from the core, type-only ones too', async () => {
    const found = await messages('http/fixture.ts', "import type { Auth } from '../auth/auth.js'\nexport type A = Auth\n")
    assert.equal(found.length, 1)
    assert.match(found[0]!, /src\/http\/ may not import src\/auth\/ \(a higher layer\)/)
    assert.match((await messages('routing/fixture.ts', "import { Application } from '../foundation/application.js'\nexport { Application }\n"))[0]!, /higher layer/)
    assert.match((await messages('support/fixture.ts', "export const f = () => import('../http/cookie-jar.js')\n"))[0]!, /higher layer/)
  })

  it('refuses a foundation that names a provider', async () => {
    assert.match((await messages('foundation/fixture.ts', "export { SessionProvider } from '../session/session-provider.js'\n"))[0]!, /src\/foundation\/ may not import src\/session\//)
  })

  it('refuses a provider that imports a provider of its own tier', async () => {
    assert.match((await messages('cors/fixture.ts', "export { ViewFactory } from '../view/view-factory.js'\n"))[0]!, /same layer/)
  })

  it('allows downward imports and a peer of the same tier', async () => {
    assert.deepEqual(await messages('auth/fixture.ts', "import { HttpContext } from '../http/context.js'\nimport { Container } from '../container/container.js'\nexport { HttpContext, Container }\n"), [])
    assert.deepEqual(await messages('routing/fixture.ts', "import type { HttpContext } from '../http/context.js'\nexport type C = HttpContext\n"), [])
  })

  it('lets a feature reach another feature only through its index.ts', async () => {
    const inside = await messages('auth/passkeys/fixture.ts', "import { amrOf } from '../two-factor/amr.js'\nexport { amrOf }\n")
    assert.match(inside[0]!, /the feature passkeys may import the feature two-factor only through auth\/two-factor\/index\.ts/)
    assert.deepEqual(await messages('auth/passkeys/fixture.ts', "export * from '../two-factor/index.js'\n"), [])
    assert.deepEqual(await messages('auth/social/fixture.ts', "export * from '../features/contract.js'\n"), [])
  })

  it('keeps the auth core from naming a feature, but for the feature list and the barrel', async () => {
    assert.match((await messages('auth/login/fixture.ts', "export * from '../social/internals.js'\n"))[0]!, /the auth core may not import the feature social/)
    assert.match((await messages('auth/login/fixture.ts', "export * from '../social/index.js'\n"))[0]!, /the auth core may not import the feature social/)
    assert.deepEqual(await messages('auth/features/fixture.ts', "export { socialFeature } from '../social/feature.js'\n"), [])
    assert.match((await messages('auth/features/fixture.ts', "export * from '../social/internals.js'\n"))[0]!, /the auth core may not import the feature social/)
    assert.deepEqual(await messages('auth/index.ts', "export * from './social/index.js'\n"), [])
  })

  it('lets a craft command kept in a feature folder use src/cli/, and nothing above it', async () => {
    assert.deepEqual(await messages('auth/social/add-command.ts', "import { CliError } from '../../cli/cli-error.js'\nexport { CliError }\n"), [])
    assert.match((await messages('auth/social/add-command.ts', "export * from '../../testing/index.js'\n"))[0]!, /src\/auth\/ may not import src\/testing\/ \(a higher layer\)/)
    assert.match((await messages('auth/social/add-command.ts', "export * from '../two-factor/amr.js'\n"))[0]!, /only through auth\/two-factor\/index\.ts/)
    assert.match((await messages('auth/social/routes.ts', "import { CliError } from '../../cli/cli-error.js'\nexport { CliError }\n"))[0]!, /higher layer/)
    assert.deepEqual(await messages('cli/commands/fixture-command.ts', "export * from '../../auth/two-factor/totp.js'\n"), [])
  })

  it('does not police the shared folders the core still reaches into (accounts/, ...)', async () => {
    assert.deepEqual(await messages('auth/login/fixture.ts', "export * from '../accounts/user-tokens.js'\n"), [])
  })

  it('keeps src/client/ a browser module', async () => {
    assert.match((await messages('client/fixture.ts', "import { createHash } from 'node:crypto'\nexport { createHash }\n"))[0]!, /Node built-in "node:crypto"/)
    assert.match((await messages('client/fixture.ts', "import { readFileSync } from 'fs'\nexport { readFileSync }\n"))[0]!, /Node built-in "fs"/)
    assert.match((await messages('client/fixture.ts', "export * from '../http/errors.js'\n"))[0]!, /src\/client\/ is a browser module/)
    assert.deepEqual(await messages('client/fixture.ts', "export * from './errors.js'\n"), [])
  })

  it('exempts tests, which may build a whole app', async () => {
    assert.deepEqual(await messages('http/fixture.test.ts', "export * from '../testing/index.js'\n"), [])
  })
})
