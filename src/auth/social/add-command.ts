/**
 * @module auth/social/add-command
 * `craft social:add <name> [--issuer URL]`: adds a provider to `config/social.ts` (written from
 * the stub when the app has none) and its variables to `.env`, empty: `<NAME>_CLIENT_ID`,
 * `<NAME>_CLIENT_SECRET`. A preset name (github, google, microsoft, apple, gitlab, discord) needs
 * no issuer; any other name is an OpenID Connect provider and needs `--issuer`, written as the
 * default of `env('<NAME>_ISSUER', 'URL')`. A name already in the file (a new app lists github and
 * google) is left as it is; its variables are still added to `.env` when missing.
 */
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { CliError } from '../../cli/cli-error.js'
import type { CliContext } from '../../cli/context.js'
import { readEnvFile } from '../../cli/env-file.js'

const PRESETS = ['github', 'google', 'microsoft', 'apple', 'gitlab', 'discord']
const NAME = /^[a-z][a-z0-9_-]{0,63}$/

/** The line `social:add` writes for `name` into `providers: {`. */
export function providerLine(name: string, issuer: string | undefined): string {
  const v = name.toUpperCase().replace(/-/g, '_')
  const client = `clientId: env('${v}_CLIENT_ID'), clientSecret: env('${v}_CLIENT_SECRET')`
  if (name === 'microsoft' && !issuer) return `    ${name}: { tenant: env('${v}_TENANT'), ${client} },`
  if (PRESETS.includes(name) && !issuer) return `    ${name}: { ${client} },`
  return `    ${name}: { driver: 'oidc', issuer: env('${v}_ISSUER', ${JSON.stringify(issuer)}), ${client} },`
}

/** Whether config/social.ts (its text) has an active line for provider `name`. */
export function hasProvider(text: string, name: string): boolean {
  return new RegExp(`^\\s*['"]?${name}['"]?\\s*:`, 'm').test(text)
}

/** Adds `name` to the text of config/social.ts; throws CliError when it is there or has no `providers: {`. */
export function addProvider(text: string, name: string, issuer: string | undefined): string {
  if (hasProvider(text, name)) throw new CliError(`config/social.ts already has a provider named "${name}".`)
  const match = /providers\s*:\s*\{[^\n]*\n/.exec(text)
  if (!match) throw new CliError('config/social.ts has no "providers: {" line to add the provider to.')
  const at = match.index + match[0].length
  return `${text.slice(0, at)}${providerLine(name, issuer)}\n${text.slice(at)}`
}

export function registerSocialAddCommand(program: Command, ctx: CliContext): void {
  program
    .command('social:add')
    .description('add a sign-in provider to config/social.ts and its variables (empty) to .env')
    .argument('<name>', 'the provider: github, google, microsoft, apple, gitlab, discord, or any name for an OpenID Connect issuer')
    .option('--issuer <url>', 'the OpenID Connect issuer (needed for a name that is not a preset)')
    .action((name: string, opts: { issuer?: string }) => {
      const root = ctx.requireApp()
      if (!NAME.test(name)) throw new CliError(`"${name}" is not a provider name: lower-case letters, digits, - and _.`)
      if (!PRESETS.includes(name) && !opts.issuer) throw new CliError(`"${name}" is not a preset (${PRESETS.join(', ')}): give its OpenID Connect issuer with --issuer https://...`)
      if (opts.issuer) {
        let url: URL
        try {
          url = new URL(opts.issuer)
        } catch {
          throw new CliError(`--issuer is not a URL: ${opts.issuer}`)
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError('--issuer must be an https: URL.')
      }
      const file = join(root, 'config', 'social.ts')
      const text = existsSync(file) ? readFileSync(file, 'utf8') : readFileSync(join(FRAMEWORK_ROOT, 'stubs', 'app', 'config', 'social.ts'), 'utf8')
      // A provider already in the file (a new app lists github and google): only its variables are added.
      const present = hasProvider(text, name)
      if (!present) writeFileSync(file, addProvider(text, name, opts.issuer))
      else if (!existsSync(file)) writeFileSync(file, text)
      const env = join(root, '.env')
      const known = readEnvFile(env)
      const v = name.toUpperCase().replace(/-/g, '_')
      const keys = [`${v}_CLIENT_ID`, `${v}_CLIENT_SECRET`, ...(name === 'microsoft' ? [`${v}_TENANT`] : [])].filter((k) => !(k in known))
      if (keys.length) {
        const current = existsSync(env) ? readFileSync(env, 'utf8') : ''
        appendFileSync(env, `${current === '' || current.endsWith('\n') ? '' : '\n'}${keys.map((k) => `${k}=`).join('\n')}\n`)
      }
      ctx.out(`${present ? `"${name}" was already in config/social.ts` : `Added "${name}" to config/social.ts`}${keys.length ? `; added ${keys.join(', ')} to .env` : ''}.`)
      ctx.out(`Register ${'<APP_URL>'}/auth/${name}/callback as the redirect URI at the provider, then fill in .env.`)
    })
}
