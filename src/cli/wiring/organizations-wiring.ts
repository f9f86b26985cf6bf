/**
 * @module cli/wiring/organizations-wiring
 * `craft auth --organizations`: the organisation pages' controllers and templates, the invitation
 * mail's template, the `create_organization_tables` migration and `app/providers/AuthorizationProvider.ts`
 * (files, written like the other auth files), then the edits: `organizations` in
 * `GUARDS.features`, the `GUARDS.organizations` block, the `invite` budget in `GUARDS.throttle`
 * (config/auth.ts), and AuthorizationProvider last in PROVIDERS (config/providers.ts). Each edit
 * is skipped when already made; a file without the expected shape is left alone and reported.
 */
import { readFileSync } from 'node:fs'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { filesUnder, missingFrameworkMigrations } from '../generator.js'
import { editFile, withImport, type EditOutcome } from './file-edits.js'

const COPIED: { from: string; to: string }[] = [
  { from: 'stubs/organizations/controllers', to: 'app/controllers/auth' },
  { from: 'stubs/organizations/providers', to: 'app/providers' },
  { from: 'templates/organizations', to: 'templates/organizations' },
  { from: 'templates/mailables/organizations', to: 'templates/mailables/organizations' },
]

export const ORGANIZATIONS_BLOCK =
  "  /** Organisations: each role's abilities ('*' covers all; the creator is owner) and the days an invitation lives. */\n" +
  "  organizations: { roles: { owner: ['*'], admin: ['organization:update', 'members:invite', 'members:remove', 'members:role'], member: [] }, invitation_days: 7 },\n"

/** The files `--organizations` writes (the migration only when the app has none of that name). */
export function organizationFiles(root: string): { path: string; contents: string }[] {
  const copied = COPIED.flatMap(({ from, to }) =>
    filesUnder(`${FRAMEWORK_ROOT}/${from}`).map((file) => ({ path: `${root}/${to}/${file}`, contents: readFileSync(`${FRAMEWORK_ROOT}/${from}/${file}`, 'utf8') })),
  )
  return [...copied, ...missingFrameworkMigrations(root, ['create_organization_tables'])]
}

/** Adds `organizations` to GUARDS.features, the GUARDS.organizations block and the `invite` budget. */
export function editAuthConfig(text: string): string | null | { refused: string } {
  let out = text
  const features = /(\bfeatures\s*:\s*\[)([^\]]*)(\])/.exec(out)
  if (!features) return { refused: 'it has no "features: [...]" list in GUARDS' }
  if (!/['"]organizations['"]/.test(features[2]!)) {
    const items = features[2]!.replace(/\s*,?\s*$/, '')
    const list = items.trim() === '' ? "'organizations'" : `${items}, 'organizations'`
    out = out.slice(0, features.index) + features[1] + list + features[3] + out.slice(features.index + features[0].length)
  }
  if (!/^\s*organizations\s*:/m.test(out)) {
    const line = /^.*\bfeatures\s*:\s*\[[^\]]*\],?[^\n]*\n/m.exec(out)
    if (!line) return { refused: 'its "features: [...]" list is not on one line' }
    const at = line.index + line[0].length
    out = out.slice(0, at) + ORGANIZATIONS_BLOCK + out.slice(at)
  }
  const throttle = /\bthrottle\s*:\s*\{/.exec(out)
  if (throttle && !/^\s*invite\s*:/m.test(out)) {
    const at = throttle.index + throttle[0].length
    out = `${out.slice(0, at)}\n    invite: { attempts: 20, minutes: 60 },${out.slice(at)}`
  }
  return out === text ? null : out
}

/** Adds AuthorizationProvider as the last entry of PROVIDERS. */
export function editProviders(text: string): string | null | { refused: string } {
  if (/\bAuthorizationProvider\b/.test(text)) return null
  const opener = /export const PROVIDERS(?:\s*:\s*[^=]+)?\s*=\s*\[/.exec(text)
  if (!opener) return { refused: 'it has no "export const PROVIDERS = [" line' }
  const close = text.indexOf(']', opener.index + opener[0].length)
  if (close === -1) return { refused: 'its PROVIDERS list is not closed' }
  const before = text.slice(0, close).replace(/\s*$/, '')
  const comma = before.endsWith('[') || before.endsWith(',') ? '' : ','
  const added = `${before}${comma}\n  AuthorizationProvider,\n${text.slice(close)}`
  return withImport(added, "import { AuthorizationProvider } from '../app/providers/AuthorizationProvider.js'")
}

export function wireOrganizations(root: string): EditOutcome[] {
  return [editFile(root, 'config/auth.ts', editAuthConfig), editFile(root, 'config/providers.ts', editProviders)]
}
