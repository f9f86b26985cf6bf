// The dependency rule of src/ (docs/architecture.md, "Layers"), as data and as a tiny ESLint rule.
//
// - A folder of src/ may import its own files and the folders of lower tiers; never a higher tier,
//   never a folder of its own tier (except the declared PEERS). `*.test.ts` and `*.test-kit.ts`
//   are exempt (tests may use src/testing/ and build a whole app).
// - A feature folder of src/auth/ (FEATURE_FOLDERS, and any folder with a feature.ts) may import
//   another feature only through that feature's index.ts; the contract (src/auth/features/) is
//   not a feature and may be imported by all. The auth core imports no feature, except the feature
//   list (src/auth/features/ importing each <feature>/feature.ts) and trowel/auth's barrel
//   (src/auth/index.ts importing each <feature>/index.ts).
// - src/client/ is a browser module: it imports nothing from src/ outside itself and no Node
//   built-in (`node:*`, `fs`, ...).
//
// Imports that break the rule today are listed in ./layers-allowlist.js, each with its reason;
// that list only shrinks. `node scripts/layers-report.mjs` counts import cycles and upward imports.
import { existsSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ALLOWED } from './layers-allowlist.js'

/** The repository's src/ folder. */
export const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src')

/** Tiers, lowest first. `.` is the files directly in src/ (index.ts, errors.ts). */
export const TIERS = [
  ['support'],
  ['container', 'events'],
  ['http', 'routing'],
  ['foundation'],
  ['database'],
  ['validation', 'session'],
  ['view', 'cors', 'observability'],
  ['mail'],
  ['auth'],
  ['api'],
  ['app'],
  ['cli'],
  ['testing'],
  ['.'],
]

/** Folders of one tier that may import each other (http's context and routing's routes name each other's types). */
export const PEERS = { http: ['routing'], routing: ['http'] }

/** The feature folders of src/auth/ (a folder holding a feature.ts is one too, unless listed in NOT_YET_FEATURES). */
export const FEATURE_FOLDERS = ['two-factor', 'passkeys', 'email-login', 'social', 'organizations']

/**
 * Folders that hold a feature.ts but that the auth core still reaches into as shared pieces: not
 * policed as features until the core stops importing their internals. Empty: every feature is
 * policed (the account pages are `account-pages/`; the pieces they stand on are the core's
 * `accounts/`).
 */
export const NOT_YET_FEATURES = []

const RANK = new Map(TIERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank])))

/** `src/`-relative path with `/` separators, or null outside src/. */
export function srcPath(file) {
  const rel = relative(SRC, file)
  if (rel.startsWith('..') || rel === '' || resolve(SRC, rel) !== resolve(file)) return null
  return rel.split(sep).join('/')
}

/** The top folder of a src/-relative path (`.` for files directly in src/). */
export function folderOf(path) {
  const slash = path.indexOf('/')
  return slash === -1 ? '.' : path.slice(0, slash)
}

function featureOf(path) {
  const parts = path.split('/')
  if (parts[0] !== 'auth' || parts.length < 3) return null
  const name = parts[1]
  if (FEATURE_FOLDERS.includes(name)) return name
  if (!NOT_YET_FEATURES.includes(name) && existsSync(join(SRC, 'auth', name, 'feature.ts'))) return name
  return null
}

export function isTestFile(path) {
  return /\.test\.ts$|\.test-kit\.ts$/.test(path)
}

/**
 * Why the import of `to` (src/-relative, or a bare specifier) from `from` breaks the rule, or
 * null when it is allowed. `specifier` is the text as written.
 */
export function violation(from, to, specifier) {
  // A craft command a feature keeps in its folder (`*-command.ts`) is CLI code: it may import src/cli/.
  const folder = folderOf(from)
  const source = /-command\.ts$/.test(from) ? 'cli' : folder
  if (source === 'client') {
    if (specifier.startsWith('node:') || isBuiltin(specifier)) return `src/client/ runs in the browser: it may not import the Node built-in "${specifier}"`
    if (to !== null && folderOf(to) !== 'client') return `src/client/ is a browser module: it may not import src/${to}`
    return null
  }
  if (to === null) return null
  const target = folderOf(to)
  if (target === 'client') return null
  if (source !== target) {
    const a = RANK.get(source)
    const b = RANK.get(target)
    if (a === undefined || b === undefined) return `src/${source}/ or src/${target}/ has no tier: add it to TIERS in scripts/eslint-rules/layers.js`
    if (b > a) return `src/${folder}/ may not import src/${target}/ (a higher layer): ${to}`
    if (b === a && !(PEERS[source] ?? []).includes(target)) return `src/${folder}/ may not import src/${target}/ (same layer): ${to}`
  }
  if (folder !== 'auth' || target !== 'auth') return null
  const fromFeature = featureOf(from)
  const toFeature = featureOf(to)
  if (!toFeature || toFeature === fromFeature) return null
  // The feature list (auth/features/) imports each feature's module, and its craft commands' list.
  if (from.startsWith('auth/features/') && (to === `auth/${toFeature}/feature.ts` || to === `auth/${toFeature}/commands.ts`)) return null
  if (fromFeature) {
    return to === `auth/${toFeature}/index.ts` ? null : `the feature ${fromFeature} may import the feature ${toFeature} only through auth/${toFeature}/index.ts: ${to}`
  }
  // trowel/auth's barrel publishes what each feature's index.ts exports.
  if (from === 'auth/index.ts' && to === `auth/${toFeature}/index.ts`) return null
  return `the auth core may not import the feature ${toFeature}: ${to}`
}

/** The src/-relative file a relative specifier names (`.js` written for `.ts`); null for a package or a file outside src/. */
export function resolveSpecifier(fromFile, specifier) {
  if (!specifier.startsWith('.')) return null
  return srcPath(resolve(dirname(fromFile), specifier).replace(/\.js$/, '.ts'))
}

function allowed(from, to) {
  return ALLOWED.some((entry) => entry.from === from && entry.to === to)
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'The dependency rule of src/: no upward import, features through their index.ts, a browser-only src/client/' },
    schema: [],
  },
  create(context) {
    const from = srcPath(context.filename)
    if (from === null || isTestFile(from)) return {}
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return
      const specifier = source.value
      const to = resolveSpecifier(context.filename, specifier)
      const why = violation(from, to, specifier)
      if (why && !allowed(from, to)) context.report({ node, message: `${why} (docs/architecture.md, "Layers")` })
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    }
  },
}

/** Reports allowlist entries of the linted file that no longer match an import (so the list shrinks). */
const staleAllowlistRule = {
  meta: { type: 'suggestion', docs: { description: 'An entry of scripts/eslint-rules/layers-allowlist.js no longer needed' }, schema: [] },
  create(context) {
    const from = srcPath(context.filename)
    if (from === null) return {}
    const entries = ALLOWED.filter((entry) => entry.from === from)
    if (entries.length === 0) return {}
    const seen = new Set()
    const note = (source) => {
      if (source && typeof source.value === 'string') seen.add(resolveSpecifier(context.filename, source.value))
    }
    return {
      ImportDeclaration: (node) => note(node.source),
      ExportNamedDeclaration: (node) => note(node.source),
      ExportAllDeclaration: (node) => note(node.source),
      ImportExpression: (node) => note(node.source),
      TSImportType: (node) => note(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
      'Program:exit': (node) => {
        for (const entry of entries) {
          // An entry whose target is not in this tree was registered ahead of a branch's merge.
          if (!seen.has(entry.to) && existsSync(join(SRC, entry.to))) context.report({ node, message: `Allowlist entry ${entry.from} -> ${entry.to} is no longer needed: remove it from scripts/eslint-rules/layers-allowlist.js` })
        }
      },
    }
  },
}

export const plugin = { rules: { layers: layersRule, 'layers-allowlist': staleAllowlistRule } }
