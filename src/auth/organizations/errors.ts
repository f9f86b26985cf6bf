/**
 * @module auth/organizations/errors
 * The organisations feature's errors (documented in docs/errors.md).
 */
import { HttpError } from '../../http/http-error.js'

/**
 * An organisation must keep an owner: its last owner cannot leave, be removed or be demoted, nor
 * delete their account while the organisation has other members (409 `E_CONFLICT`).
 */
export class LastOwnerError extends HttpError {
  constructor(message = 'An organisation must keep an owner: make another member an owner first.') {
    super(409, 'E_CONFLICT', message)
  }
}
