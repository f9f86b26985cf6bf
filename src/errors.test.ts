/**
 * The error catalogue: every error class of the framework, instantiated, checked for a valid
 * status and code, and looked up in docs/errors.md, so that a new error cannot ship without its
 * documentation (and a removed one cannot stay documented).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HttpError } from './http/http-error.js'
import { FrameworkError } from './foundation/framework-error.js'
import { JwtError } from './api/jwt/errors.js'
import { UnauthorizedError } from './http/errors.js'
import * as httpErrorModule from './http/http-error.js'
import * as httpErrors from './http/errors.js'
import * as frameworkErrorModule from './foundation/framework-error.js'
import * as authErrors from './auth/errors.js'
import * as apiErrors from './api/errors.js'
import * as jwtErrors from './api/jwt/errors.js'
import * as databaseErrors from './database/errors.js'
import * as mailErrors from './mail/mail-error.js'
import * as routingErrors from './routing/errors.js'
import * as cliErrors from './cli/cli-error.js'
import * as hashingErrors from './auth/hashing/errors.js'
import * as templateErrors from './view/template-error.js'
import * as cookieSessionStore from './session/stores/cookie-session-store.js'
import * as credentialVerifier from './auth/credential-verifier.js'
import * as personalTokenAbilities from './api/personal-tokens/abilities.js'
import * as publicErrors from './errors.js'
import { authFeatures } from './auth/features/index.js'
import { apiFeatures } from './api/features/index.js'

const SRC = fileURLToPath(new URL('.', import.meta.url))
const DOCS = readFileSync(fileURLToPath(new URL('../docs/errors.md', import.meta.url)), 'utf8')

/** Every module that defines error classes (the scan below fails when one is missing here). */
const MODULES: Record<string, Record<string, unknown>> = {
  'http/http-error.ts': httpErrorModule,
  'http/errors.ts': httpErrors,
  'foundation/framework-error.ts': frameworkErrorModule,
  'auth/errors.ts': authErrors,
  'api/errors.ts': apiErrors,
  'api/jwt/errors.ts': jwtErrors,
  'database/errors.ts': databaseErrors,
  'mail/mail-error.ts': mailErrors,
  'routing/errors.ts': routingErrors,
  'cli/cli-error.ts': cliErrors,
  'auth/hashing/errors.ts': hashingErrors,
  'view/template-error.ts': templateErrors,
  'session/stores/cookie-session-store.ts': cookieSessionStore,
  'auth/credential-verifier.ts': credentialVerifier,
  'api/personal-tokens/abilities.ts': personalTokenAbilities,
  // Each auth feature's own errors (its module's `errors`), whatever its folder.
  ...Object.fromEntries(authFeatures().filter((f) => f.errors).map((f) => [`the ${f.name} feature`, f.errors!])),
  // And each piece of the API's (`errors` of its module).
  ...Object.fromEntries(apiFeatures().filter((f) => f.errors).map((f) => [`the ${f.name} API feature`, f.errors!])),
}

/** Adding an HttpError class means updating this number and docs/errors.md. */
const HTTP_ERROR_CLASSES = 37
const FRAMEWORK_ERROR_CLASSES = 6
const JWT_ERROR_CLASSES = 4

/**
 * Codes shared by more than one HttpError class, on purpose. Each later class is a more precise
 * kind of the first, and the client sees the same answer either way. `sameStatus: false` marks one
 * condition met at two moments, each answered with its own status (the code tells a client what is missing).
 */
const SHARED_CODES: Record<string, { classes: string[]; reason: string; sameStatus?: false }> = {
  E_INVALID_CREDENTIALS: { classes: ['InvalidCredentialsError', 'ApiCredentialsError'], reason: 'the token route refuses wrong credentials as the login form does, in the API\'s wording' },
  E_NOT_FOUND: { classes: ['NotFoundError', 'ModelNotFoundError'], reason: 'findOrFail() on a missing row is a 404 like a missing route; the class adds the model name' },
  E_INTERNAL: { classes: ['InternalError', 'TemplateRenderError'], reason: 'a broken template is a 500 like any other failure; the class adds file and line (debug only)' },
  E_TOO_MANY_REQUESTS: { classes: ['TooManyRequestsError', 'BudgetExceededError'], reason: 'every refused budget is a 429 with Retry-After; the class adds which budget refused, for events and logs' },
  E_FORBIDDEN: { classes: ['ForbiddenError', 'InsufficientScopeError'], reason: 'a token lacking an ability is forbidden like any other refusal; the class adds RFC 6750\'s insufficient_scope header naming the ability' },
  E_CONFLICT: { classes: ['UniqueConstraintError', 'LastOwnerError'], reason: 'the last owner of an organisation leaving, demoted, removed or deleting their account conflicts with the rule that it keeps an owner, as a duplicate conflicts with a unique index' },
  E_UNAVAILABLE: { classes: ['ServiceUnavailableError', 'DatabaseUnavailableError'], reason: 'a lost database is one kind of unavailable service; the class adds a line naming the connection' },
  E_MFA_REQUIRED: {
    classes: ['SecondFactorRequiredError', 'MfaRequiredError'],
    reason: 'one answer to "a second factor is missing": 401 on a login whose second step is pending (the API\'s carries mfa_token), 403 on a route behind mfa for a login without one',
    sameStatus: false,
  },
}

type ErrorClass = new (...args: any[]) => Error

/** Plausible arguments for each constructor that needs some; the others are called with none. */
const ARGUMENTS: Record<string, unknown[]> = {
  MethodNotAllowedError: [['GET', 'HEAD']],
  InsufficientScopeError: ['posts:write'],
  ValidationError: [{ email: ['The email field is required.'] }],
  TooManyRequestsError: [30],
  BudgetExceededError: [30, 'login'],
  DatabaseUnavailableError: ['Cannot connect to database "sqlite"'],
  ModelNotFoundError: ['User'],
  UniqueConstraintError: ['email'],
  MailHeaderInjectionError: ['subject'],
  TemplateRenderError: [{ file: 'home.html', line: 3, column: 7, detail: 'unexpected token' }, new Error('parse error')],
  AuthConfigError: ['config/auth.ts is missing or does not export GUARDS.'],
  ApiConfigError: ['config/api.ts: DRIVERS.jwt is missing.'],
  MigrationError: ['2024_01_01_000000_create_users_table', 'it could not be loaded'],
  RouteDefinitionError: ['Unknown HTTP method "FETCH" for route /.'],
  RouteNotFoundByNameError: ['home'],
  SessionTooLargeError: [5000],
  JwtExpiredError: [1_700_000_000],
  JwtVersionMismatchError: [2, 1],
  PasswordTooLongError: [1024],
  CliError: ['Not inside a Trowel app.'],
  SecondFactorRequiredError: ['q2VcBqO0yqL9cz1cyLq2b4x8u9i2J3PZ0Kf0lA8cZ4c'],
}

interface Entry {
  /** Its export name, the class's own when it also has an alias (AuthenticationError is UnauthorizedError). */
  name: string
  cls: ErrorClass
  instance: Error & { code?: unknown; status?: unknown }
}

function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === 'function' && (value === Error || value.prototype instanceof Error)
}

function collect(): Entry[] {
  const seen = new Map<ErrorClass, Entry>()
  for (const [file, mod] of Object.entries(MODULES)) {
    for (const [name, value] of Object.entries(mod)) {
      if (!isErrorClass(value)) continue
      const known = seen.get(value)
      if (known) {
        if (name === value.name) known.name = name
        continue
      }
      if (value === HttpError || value === FrameworkError || value === JwtError) continue
      const args = ARGUMENTS[name]
      assert.ok(args !== undefined || value.length === 0, `${file}: give ${name} plausible constructor arguments in ARGUMENTS`)
      seen.set(value, { name, cls: value, instance: new value(...(args ?? [])) })
    }
  }
  return [...seen.values()]
}

const entries = collect()
const httpEntries = entries.filter((e) => e.instance instanceof HttpError) as (Entry & { instance: HttpError })[]
const frameworkEntries = entries.filter((e) => e.instance instanceof FrameworkError) as (Entry & { instance: FrameworkError })[]
const jwtEntries = entries.filter((e) => e.instance instanceof JwtError) as (Entry & { instance: JwtError })[]

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFiles(path, out)
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.test(-kit)?\.ts$/.test(name)) out.push(path)
  }
  return out
}

const SOURCES = sourceFiles(SRC).map((path) => ({ file: relative(SRC, path), text: readFileSync(path, 'utf8') }))

/**
 * The codes a source text passes as the first argument of `new FrameworkError(...)`, `super(...)`
 * (FrameworkError and JwtError subclasses) or `configError(...)`: any quote, any spacing, line
 * breaks included.
 */
function thrownCodes(text: string): string[] {
  const pattern = /\b(?:new\s+FrameworkError|super|configError)\s*\(\s*(['"`])(E_[A-Z0-9_]+)\1/g
  return [...text.matchAll(pattern)].map((m) => m[2]!)
}

/** Whether docs/errors.md names `code` as a code (in backticks, so E_JWT_INVALID is not found inside E_JWT_INVALID_SUBJECT). */
function documented(code: string): boolean {
  return DOCS.includes('`' + code + '`')
}

/** The status each table row of docs/errors.md gives a code: `| \`E_X\` | 404 | ...`. */
function documentedStatuses(): Map<string, Set<number>> {
  const statuses = new Map<string, Set<number>>()
  for (const match of DOCS.matchAll(/^\|\s*`(E_[A-Z0-9_]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
    const set = statuses.get(match[1]!) ?? new Set<number>()
    set.add(Number(match[2]))
    statuses.set(match[1]!, set)
  }
  return statuses
}

describe('error catalogue', () => {
  it('collects every error class of every module, each with its own name', () => {
    assert.equal(httpEntries.length, HTTP_ERROR_CLASSES, `HttpError classes: ${httpEntries.map((e) => e.name).join(', ')}`)
    assert.equal(frameworkEntries.length, FRAMEWORK_ERROR_CLASSES, `FrameworkError classes: ${frameworkEntries.map((e) => e.name).join(', ')}`)
    assert.equal(jwtEntries.length, JWT_ERROR_CLASSES, `JwtError classes: ${jwtEntries.map((e) => e.name).join(', ')}`)
    for (const { name, cls, instance } of [...httpEntries, ...jwtEntries]) {
      assert.equal(cls.name, name, `${name}: the class's name`)
      assert.equal(instance.name, name, `${name}: error.name`)
      assert.ok(instance.stack?.startsWith(`${name}: `), `${name}: the stack starts with its name`)
    }
  })

  it('every class extending an error class in src/ is in MODULES', () => {
    const family = new Set<string>(['HttpError', 'FrameworkError', 'JwtError', ...entries.map((e) => e.name), ...entries.map((e) => e.cls.name)])
    const declared: { file: string; name: string; base: string }[] = []
    for (const { file, text } of SOURCES) {
      for (const m of text.matchAll(/\bclass\s+(\w+)\s+extends\s+([\w.]+)/g)) declared.push({ file, name: m[1]!, base: m[2]!.split('.').pop()! })
    }
    assert.ok(declared.length > 0, 'the scan found no class declarations')
    const missing: string[] = []
    for (let grown = true; grown; ) {
      grown = false
      for (const { file, name, base } of declared) {
        if (!family.has(base) || family.has(name)) continue
        family.add(name)
        missing.push(`${name} (${file})`)
        grown = true
      }
    }
    assert.deepEqual(missing, [], 'import these modules in MODULES')
  })

  it('every errors.ts in a feature folder is its module\'s errors', () => {
    const folders = SOURCES.filter(({ file }) => /^auth\/[^/]+\/feature\.ts$/.test(file.split(sep).join('/'))).map(({ file }) => dirname(file))
    assert.ok(folders.length >= authFeatures().length, 'the scan found the feature folders')
    for (const folder of folders) {
      const own = SOURCES.find(({ file }) => file === join(folder, 'errors.ts'))
      if (!own) continue
      const classes = [...own.text.matchAll(/\bexport class (\w+)/g)].map((m) => m[1]!)
      const declared = authFeatures().flatMap((f) => Object.keys(f.errors ?? {}))
      for (const name of classes) assert.ok(declared.includes(name), `${folder}/errors.ts: ${name} is in no feature module's errors`)
    }
  })

  it('AuthenticationError is UnauthorizedError under its old name, and errors.* exports the HTTP errors', () => {
    assert.equal(authErrors.AuthenticationError, UnauthorizedError)
    assert.equal(publicErrors.AuthenticationError, UnauthorizedError)
    for (const [name, value] of Object.entries(httpErrors)) assert.equal((publicErrors as Record<string, unknown>)[name], value, `errors.${name}`)
  })

  it('every HttpError has a 4xx or 5xx status and an E_ code', () => {
    for (const { name, instance } of httpEntries) {
      assert.ok(Number.isInteger(instance.status) && instance.status >= 400 && instance.status <= 599, `${name}: status ${instance.status}`)
      assert.match(instance.code, /^E_[A-Z0-9_]+$/, `${name}: code`)
      assert.ok(instance.message.length > 0, `${name}: message`)
      assert.equal(typeof instance.headers, 'object', `${name}: headers`)
    }
  })

  it('FrameworkError and JwtError classes have an E_ code and no status', () => {
    for (const { name, instance } of [...frameworkEntries, ...jwtEntries]) {
      assert.match(instance.code, /^E_[A-Z0-9_]+$/, `${name}: code`)
      assert.equal((instance as { status?: unknown }).status, undefined, `${name}: status`)
      assert.ok(!(instance instanceof HttpError), `${name}: not an HttpError`)
    }
  })

  it('HttpError codes are unique, except the pairs shared on purpose', () => {
    const byCode = new Map<string, string[]>()
    for (const { name, instance } of httpEntries) byCode.set(instance.code, [...(byCode.get(instance.code) ?? []), name])
    const shared = Object.fromEntries([...byCode].filter(([, names]) => names.length > 1).map(([code, names]) => [code, names.sort()]))
    const allowed = Object.fromEntries(Object.entries(SHARED_CODES).map(([code, { classes }]) => [code, [...classes].sort()]))
    assert.deepEqual(shared, allowed, 'a code used by two classes must be listed in SHARED_CODES with its reason (and a listed one must still be shared)')
    for (const { classes, reason, sameStatus } of Object.values(SHARED_CODES)) {
      assert.ok(reason.length > 0)
      if (sameStatus === false) continue
      const [first, ...others] = classes.map((n) => httpEntries.find((e) => e.name === n)!)
      for (const other of others) assert.equal(other.instance.status, first!.instance.status, `${other.name}: same status as ${first!.name}`)
    }
  })

  it('every 401 is an UnauthorizedError', () => {
    const unauthorized = httpEntries.filter((e) => e.instance.status === 401)
    assert.ok(unauthorized.length >= 2)
    for (const { name, instance } of unauthorized) assert.ok(instance instanceof UnauthorizedError, `${name} must extend UnauthorizedError`)
  })

  it('finds the codes thrown with new FrameworkError / super / configError, across lines and quotes', () => {
    const sample = [
      "throw new FrameworkError('E_ONE', 'x')",
      'throw new FrameworkError(\n      "E_TWO",\n      `y`)',
      "super(\n  'E_THREE', message)",
      'return configError(`E_FOUR`, detail)',
      "super(404, 'E_NOT_THIS', message)",
    ].join('\n')
    assert.deepEqual(thrownCodes(sample), ['E_ONE', 'E_TWO', 'E_THREE', 'E_FOUR'])
  })

  it('documents every code in docs/errors.md', () => {
    const scanned = new Map<string, string>()
    for (const { file, text } of SOURCES) for (const code of thrownCodes(text)) if (!scanned.has(code)) scanned.set(code, file)
    assert.ok(scanned.size > 0, 'the scan of src/ found no FrameworkError codes: is the pattern still right?')
    for (const { instance } of frameworkEntries) assert.ok(scanned.has(instance.code), `the scan missed ${instance.code}`)

    const missing: string[] = []
    // Every class's code: HttpError, JwtError, and those with a code outside the three families (PasswordTooLongError).
    for (const { name, instance } of entries) {
      if (typeof instance.code === 'string' && !documented(instance.code)) missing.push(`${instance.code} (${name})`)
    }
    for (const [code, file] of scanned) if (!documented(code)) missing.push(`${code} (${file})`)
    assert.deepEqual([...new Set(missing)], [], 'add these codes to docs/errors.md')
  })

  it('documents each HttpError class with its status, and no code that does not exist', () => {
    const statuses = documentedStatuses()
    for (const { name, cls, instance } of httpEntries) {
      assert.ok(statuses.get(instance.code)?.has(instance.status), `docs/errors.md: a row \`${instance.code}\` | ${instance.status}`)
      assert.ok(DOCS.includes('`' + cls.name + '`'), `docs/errors.md: the class ${cls.name}`)
      if (name !== cls.name) assert.ok(DOCS.includes('`' + name + '`'), `docs/errors.md: the name ${name}`)
    }
    const known = new Set<string>(entries.map((e) => e.instance.code).filter((c): c is string => typeof c === 'string'))
    for (const { text } of SOURCES) for (const code of thrownCodes(text)) known.add(code)
    const stale = [...new Set([...DOCS.matchAll(/`(E_[A-Z0-9_]+)`/g)].map((m) => m[1]!))].filter((code) => !known.has(code))
    assert.deepEqual(stale, [], 'docs/errors.md names codes that no error has')
  })
})
