/**
 * @module auth/two-factor/openapi
 * What `craft openapi` says of the `two_factor` feature's routes (its module's `openapi`): the
 * API login's second step (`api.auth.two_factor`), with `--web` the fields of its forms, and
 * where a login answered `E_MFA_REQUIRED` goes on (its second step).
 * Plain OpenAPI objects: `$ref`s name the core's shared responses and schemas.
 */
import type { FeatureOpenApi } from '../features/contract.js'

const form = (properties: Record<string, unknown>, required: string[]) => {
  const schema = { type: 'object', required, properties }
  return { required: true, content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } }
}
const response = (name: string) => ({ $ref: `#/components/responses/${name}` })
const text = { type: 'string' }
const flag = { type: ['boolean', 'string'], description: '`1`, `on`, `true` or `yes` when ticked.' }

export const TWO_FACTOR_OPENAPI: FeatureOpenApi = {
  operations: {
    'api.auth.two_factor': {
      summary: 'Finish a login with a second factor',
      description:
        'The second step after `POST <authRoute>` answered 401 `E_MFA_REQUIRED`: the `mfa_token` from that answer and the ' +
        'code from the authenticator app (`code`) or one of the recovery codes (`recovery_code`). A wrong code is 422 ' +
        '(`errors.code`) and the `mfa_token` stays usable; an unknown, used or expired `mfa_token` is 422 (`errors.mfa_token`): ' +
        'log in again. A code is accepted once; 5 wrong codes a minute are throttled.',
      security: [],
      requestBody: form(
        {
          mfa_token: { type: 'string', description: 'From the 401 `E_MFA_REQUIRED` answer of the token route.' },
          code: { type: 'string', pattern: '^[0-9 ]{6,7}$', description: 'The 6-digit code from the authenticator app.' },
          recovery_code: { type: 'string', description: 'Instead of `code`: one of the recovery codes (each works once).' },
        },
        ['mfa_token'],
      ),
      responses: {
        200: { description: 'The new token (its `amr` claim is `["pwd", "otp"]`).', content: { 'application/json': { schema: { $ref: '#/components/schemas/Token' } } } },
        429: response('TooManyRequests'),
        503: response('ServiceUnavailable'),
      },
    },
  },
  forms: {
    'two_factor.enable': { fields: { required: ['code'], properties: { code: { type: 'string', pattern: '^[0-9 ]{6,7}$' } } } },
    // The second step: no login yet, only one waiting for it.
    'two_factor.challenge.store': { fields: { properties: { code: text, recovery_code: text, trust: flag } }, throttled: true, unauthorized: true },
  },
  mfaRequired: {
    webLogin: 'a right password of a user with two factors (`E_MFA_REQUIRED`: answer on `POST /two-factor-challenge`)',
    tokenLogin: 'a right password of a user with two-factor authentication (`E_MFA_REQUIRED`, with the `mfa_token` to send to `POST <authRoute>/two-factor`)',
    challenge:
      'A right password of a user with two-factor authentication: no token yet. Send `mfa_token` with the code ' +
      'from the authenticator app (or a recovery code) to `POST <authRoute>/two-factor` within 5 minutes.',
    stepUp: 'The route needs a login with a second factor (`mfa`): log in again through `POST <authRoute>/two-factor`.',
  },
}
