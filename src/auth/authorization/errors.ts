/**
 * @module auth/authorization/errors
 * A refusal of authorization is the HTTP layer's `ForbiddenError` (403 `E_FORBIDDEN`): a page for
 * a browser, `{"message", "code"}` for JSON.
 */
import { ForbiddenError } from '../../http/errors.js'

export const UNAUTHORIZED_ACTION = 'This action is unauthorized.'

/** The 403 every refusal of authorization answers. */
export function forbidden(): ForbiddenError {
  return new ForbiddenError(UNAUTHORIZED_ACTION)
}
