/**
 * @module cli/commands/api-install-command
 * `craft api:install`: writes `config/api.ts` (refusing to overwrite without `--force`) and a new
 * 64-byte random `JWT_SECRET` (base64url) in `.env` unless one exists. Prints where things went,
 * never the secret. `--algorithm EdDSA|ES256|RS256` generates a key pair instead (node:crypto) and
 * writes its private key to `.env` as `JWT_PRIVATE_KEY` (one line, `\n` escapes, double quotes,
 * which dotenv turns back into newlines), unless one for that algorithm is there already; the
 * public key is derived from it at startup. A new `config/api.ts` revokes tokens by epoch
 * (`revocation: 'epoch'`, with its migration; `--revocation none` leaves it out). With `--wire` it
 * also makes every other step of turning the API on (see cli/wiring/api-wiring), printing each
 * file it changed.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { CliError } from '../cli-error.js'
import { loadAsymmetricKey } from '../../api/jwt/keys.js'
import type { AsymmetricAlgorithm, JwtAlgorithm } from '../../api/jwt/types.js'
import type { Command } from 'commander'
import { readEnvFile, setEnvValue } from '../env-file.js'
import { readStub, writeFiles } from '../generator.js'
import type { CliContext } from '../context.js'
import { existsSync } from 'node:fs'
import { colors } from '../output.js'
import { wireApi } from '../wiring/api-wiring.js'
import { personalTokensMigration } from './personal-tokens-migration.js'
import type { EditOutcome } from '../wiring/file-edits.js'
import { apiTokensMigration, setTableStore, storeOption } from './api-tokens-store.js'
import { revocationOption, setEpochRevocation, tokenEpochMigration, withoutEpochRevocation } from './api-epoch-revocation.js'

/** One line per step of the wiring: what changed, what was already there, what was refused. */
export function reportWiring(ctx: Pick<CliContext, 'out'>, outcomes: EditOutcome[]): void {
  const c = colors()
  for (const o of outcomes) {
    if (o.result === 'changed') ctx.out(`${c.green('Updated')} ${o.file}`)
    else if (o.result === 'present') ctx.out(c.dim(`Already done: ${o.file}`))
    else if (o.result === 'refused') ctx.out(c.yellow(`Not changed: ${o.file} (${o.why}); make this step by hand (docs/jwt-api.md)`))
  }
}

export function registerApiInstallCommand(program: Command, ctx: CliContext): void {
  program
    .command('api:install')
    .summary('create config/api.ts and a JWT_SECRET in .env (an existing secret is kept)')
    .description(
      'Create config/api.ts and a JWT_SECRET in .env (64 random bytes, base64url; an existing secret is kept and never printed). ' +
        'With --algorithm EdDSA, ES256 or RS256 it generates a key pair instead (Ed25519, P-256 or RSA 2048-bit) and writes the private key to .env as JWT_PRIVATE_KEY ' +
        '(one line in double quotes, newlines as \\n); tokens are then signed with it and carry its kid, and GET /.well-known/jwks.json publishes the public key. ' +
        'An existing JWT_PRIVATE_KEY is kept when it is a key for that algorithm, and refused (nothing changes) when it is not. ' +
        "A new config/api.ts has revocation: 'epoch' and the add_token_epoch_to_users migration is written, so a password change or reset, " +
        '"log out other devices" and "This wasn\'t me" refuse the user\'s tokens within a second (--revocation none leaves it out); an existing config/api.ts keeps its setting.',
    )
    .option('--force', 'rewrite config/api.ts (JWT_SECRET and JWT_PRIVATE_KEY are never replaced)')
    .option('--algorithm <name>', 'HS512 (default), HS384, HS256, or EdDSA, ES256, RS256: a key pair, its private key in .env as JWT_PRIVATE_KEY')
    .option('--store <kind>', "table: per-device token families in api_tokens (writes its migration and store: 'table'); column (default): the user's token column")
    .option(
      '--revocation <kind>',
      "epoch (the default of a new config/api.ts): every token carries its user's token_epoch, raised by every \"log out everywhere\" (writes its migration and revocation: 'epoch', " +
        'also into an existing config/api.ts); none: a new config/api.ts without it',
    )
    .option('--wire', 'also make every other step of turning the API on: ApiProvider, routes/api.ts, the Kernel stacks, the User model, the token migration, Api.routes()')
    .action((opts: { force?: boolean; wire?: boolean; algorithm?: string; store?: string; revocation?: string }) => {
      const { ok, changed } = installApi(ctx, ctx.requireApp(), opts)
      if (!ok) process.exitCode = 1
      else if (!changed) ctx.out('Nothing changed: the API is already installed' + (opts.wire ? ' and wired.' : '.'))
      else if (opts.wire) ctx.out('Then run: node craft migrate')
    })
}

const ALGORITHMS: readonly JwtAlgorithm[] = ['HS512', 'HS384', 'HS256', 'EdDSA', 'ES256', 'RS256']
const KEY_NAMES: Record<AsymmetricAlgorithm, string> = { EdDSA: 'Ed25519', ES256: 'P-256', RS256: 'RSA 2048-bit' }

/** `--algorithm`, matched case-insensitively (`eddsa` is `EdDSA`). */
function algorithmOption(value: string | undefined): JwtAlgorithm {
  if (value === undefined) return 'HS512'
  const found = ALGORITHMS.find((a) => a.toLowerCase() === value.toLowerCase())
  if (!found) throw new CliError(`Unknown --algorithm "${value}": use one of ${ALGORITHMS.join(', ')}.`)
  return found
}

/** A new private key for `algorithm`, PKCS#8 PEM. */
function generatePrivateKey(algorithm: AsymmetricAlgorithm): string {
  const { privateKey } =
    algorithm === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : algorithm === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 })
  return privateKey.export({ format: 'pem', type: 'pkcs8' }) as string
}

/**
 * The key of an asymmetric algorithm in .env: kept when it is one for `algorithm`, generated
 * when missing. A key of another type is never replaced (tokens signed with it would stop
 * working): the command stops and says what to do.
 */
function ensurePrivateKey(ctx: Pick<CliContext, 'out'>, envPath: string, algorithm: AsymmetricAlgorithm): boolean {
  const existing = readEnvFile(envPath).JWT_PRIVATE_KEY
  if (existing) {
    try {
      loadAsymmetricKey(existing, { where: 'JWT_PRIVATE_KEY in .env', expected: algorithm })
    } catch (error) {
      throw new CliError(
        `${(error as Error).message.split('. ')[0]}. Nothing was changed. To switch, move it to JWT_PREVIOUS_KEYS ` +
          '(so tokens it signed keep working), remove JWT_PRIVATE_KEY from .env and run this again.',
      )
    }
    ctx.out('JWT_PRIVATE_KEY already set in .env; kept it.')
    return false
  }
  const pem = generatePrivateKey(algorithm)
  // One line: dotenv reads "\n" inside double quotes as a newline.
  setEnvValue(envPath, 'JWT_PRIVATE_KEY', `"${pem.trim().replace(/\n/g, '\\n')}\\n"`)
  ctx.out(`JWT_PRIVATE_KEY (${KEY_NAMES[algorithm]} private key) written to .env; its public key is served at /.well-known/jwks.json`)
  return true
}

/** config/api.ts for `algorithm`: the stub, with the algorithm and (asymmetric) the key setting. */
function configSource(algorithm: JwtAlgorithm, epochs: boolean): string {
  const stub = epochs ? readStub('api/api.ts.stub') : withoutEpochRevocation(readStub('api/api.ts.stub'))
  if (algorithm === 'HS512') return stub
  const from = "algorithm: 'HS512', secret: env('JWT_SECRET')"
  if (!stub.includes(from)) throw new Error(`stubs/api/api.ts.stub no longer contains ${from}`)
  const to = algorithm.startsWith('HS') ? `algorithm: '${algorithm}', secret: env('JWT_SECRET')` : `algorithm: '${algorithm}', private_key: env('JWT_PRIVATE_KEY')`
  return stub.replace(from, to)
}

/** What `installApi` did: `ok` is false when a wiring step was refused; `changed`, whether any file changed. */
export interface ApiInstallOutcome {
  ok: boolean
  changed: boolean
}

/**
 * `api:install`'s work: the JWT_SECRET, config/api.ts, and with `wire` every other step. Not ok
 * when a wiring step was refused (its file no longer has the expected shape).
 */
export function installApi(ctx: Pick<CliContext, 'out'>, root: string, opts: { force?: boolean; wire?: boolean; algorithm?: string; store?: string; revocation?: string }): ApiInstallOutcome {
  const algorithm = algorithmOption(opts.algorithm)
  const revocation = revocationOption(opts.revocation)
  const store = storeOption(opts.store)
  // The secret (or key) first: a missing one is added even when config/api.ts exists and the
  // write below refuses (without --force) to overwrite it.
  const envPath = `${root}/.env`
  let changed = false
  /** writeFiles, noting whether it wrote anything. */
  const write = (files: { path: string; contents: string }[], force?: boolean): void => {
    writeFiles(files, { force, root, out: ctx.out })
    if (files.length > 0) changed = true
  }
  if (algorithm.startsWith('HS')) {
    const existing = readEnvFile(envPath).JWT_SECRET
    if (existing) {
      ctx.out('JWT_SECRET already set in .env; kept it.')
    } else {
      setEnvValue(envPath, 'JWT_SECRET', randomBytes(64).toString('base64url'))
      changed = true
      ctx.out('JWT_SECRET (64 random bytes) written to .env')
    }
  } else {
    changed = ensurePrivateKey(ctx, envPath, algorithm as AsymmetricAlgorithm)
  }
  // The personal access tokens table, when the app has no such migration yet (before config/api.ts,
  // whose write may refuse).
  write(personalTokensMigration(root))
  const config = `${root}/config/api.ts`
  // `--store table` on an installed API only adds the table and the setting (below); an existing
  // config/api.ts keeps how it revokes tokens unless `--revocation epoch` says otherwise.
  let written = false
  if ((opts.wire || store === 'table' || revocation) && existsSync(config) && !opts.force) ctx.out(colors().dim('Already done: config/api.ts'))
  else {
    write([{ path: config, contents: configSource(algorithm, revocation !== 'none') }], opts.force)
    written = true
  }
  /** A migration, then `setting` of DRIVERS.jwt set by `edit` (kept as it is in an existing config/api.ts). */
  const withSetting = (migration: { path: string; contents: string }[], edit: (configPath: string) => 'changed' | 'present' | 'refused', setting: string): void => {
    write(migration)
    const outcome = edit(config)
    if (outcome === 'changed') {
      ctx.out(`${colors().green('Updated')} config/api.ts (${setting})`)
      changed = true
    }
    else if (outcome === 'refused') ctx.out(colors().yellow(`Not changed: config/api.ts (no jwt driver found); add ${setting} to DRIVERS.jwt by hand`))
  }
  // Per-device token families: their table and the store setting.
  if (store === 'table') withSetting(apiTokensMigration(root), setTableStore, "store: 'table'")
  // Token epochs: the users' columns and the revocation setting.
  if (revocation === 'epoch' || (written && revocation === null)) withSetting(tokenEpochMigration(root), setEpochRevocation, "revocation: 'epoch'")
  if (!opts.wire) return { ok: true, changed }
  const outcomes = wireApi(root)
  reportWiring(ctx, outcomes)
  return { ok: !outcomes.some((o) => o.result === 'refused'), changed: changed || outcomes.some((o) => o.result === 'changed') }
}
