/**
 * @module api/guards/jwt/verified-bearer
 * The verified token of one request; its digest is computed only when something needs it.
 */
import { sha256Hex, type JwtPayload } from '../../jwt/index.js'
import type { VerifiedToken } from './types.js'

export class VerifiedBearer implements VerifiedToken {
  #digest: string | undefined

  constructor(
    readonly token: string,
    readonly payload: JwtPayload,
  ) {}

  get digest(): string {
    return (this.#digest ??= sha256Hex(this.token))
  }
}
