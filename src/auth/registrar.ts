/**
 * @module auth/registrar
 * Creates accounts: `auth.register(data)` without the login. Only the model's fillable fields
 * are written, the identifier normalised (`normalizeEmail`: trimmed, NFC, lower-cased) and the
 * password hashed; a taken address is refused before
 * any hashing. Validation (rules, password policy) is the caller's: AuthForms does it.
 */
import type { Hasher } from './hashing/index.js'
import type { AuthModel } from './user-providers/model-user-provider.js'
import { MAX_PASSWORD_LENGTH, isPasswordTooLong } from './hashing/password-length.js'
import { AuthConfigError } from './errors.js'
import { UniqueConstraintError } from '../database/errors.js'
import { normalizeEmail } from './email.js'

export interface RegisterData {
  name?: unknown
  email?: unknown
  password?: unknown
  [key: string]: unknown
}

export class Registrar {
  constructor(
    private readonly model: AuthModel | undefined,
    private readonly hasher: Hasher,
  ) {}

  /** The new user; throws UniqueConstraintError when the identifier is taken. */
  async create<T = any>(data: RegisterData): Promise<T> {
    const model = this.model
    if (!model) throw new AuthConfigError('GUARDS.web.model is not set in config/auth.ts.')
    const attributes: Record<string, unknown> = { ...data }
    const authColumn = model.authColumn ?? 'email'
    const passwordColumn = model.passwordColumn ?? 'password'
    // Stored as it is looked up and as the login budgets are keyed: one spelling per account.
    if (typeof attributes[authColumn] === 'string') attributes[authColumn] = normalizeEmail(attributes[authColumn])
    const password = attributes[passwordColumn]
    if (typeof password !== 'string' || password.length === 0 || isPasswordTooLong(password)) {
      throw new AuthConfigError(`auth.register needs a password string of 1 to ${MAX_PASSWORD_LENGTH} characters.`)
    }
    // Unique without case (the users migration's lower(email) index enforces it against races);
    // checked first so that a taken address costs no hash.
    if (await model.findForAuth(attributes[authColumn])) throw new UniqueConstraintError(authColumn)
    attributes[passwordColumn] = await this.hasher.hash(password)
    return (await (model as unknown as { create(a: Record<string, unknown>): Promise<T> }).create(attributes))
  }
}
