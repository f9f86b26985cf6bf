/**
 * @module api/openapi/token-operations
 * What the OpenAPI document says about the routes `Api.routes()` adds, keyed by route name (their
 * paths can be changed with `Api.routes({ authRoute, ... })`, their names cannot). The routes a
 * feature adds there are described by the feature (its module's `openapi.operations`).
 */
import type { MfaRequiredDoc } from '../../auth/features/contract.js'
import { JWT_SCHEME, ref } from './components.js'

const form = (properties: Record<string, unknown>, required: string[]) => {
  const schema = { type: 'object', required, properties }
  return { required: true, content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } }
}

const tokenAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Token' } } },
})

/**
 * Operation objects without path, method and the errors every operation shares; `mfa`: how the
 * feature serving the second step explains `E_MFA_REQUIRED`.
 */
export const tokenOperations = (mfa?: MfaRequiredDoc): Record<string, Record<string, unknown>> => ({
  'api.auth': {
    summary: 'Exchange an e-mail address and password for a token',
    description: 'Starts a new token for the user (the previous one stops being re-issuable). Failed attempts count against the login budgets.',
    security: [],
    requestBody: form({ username: { type: 'string', description: 'The e-mail address.' }, password: { type: 'string', format: 'password' } }, ['username', 'password']),
    responses: {
      200: tokenAnswer('The new token (its `amr` claim is `["pwd"]`).'),
      401: {
        description: `Wrong username or password (\`E_INVALID_CREDENTIALS\`)${mfa ? `, or ${mfa.tokenLogin}` : ''}.`,
        content: {
          'application/json': {
            schema: { oneOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/MfaChallenge' }] },
            example: { message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' },
          },
        },
      },
      429: ref('TooManyRequests'),
      503: ref('ServiceUnavailable'),
    },
  },
  'api.reauth': {
    summary: 'Exchange a token (expired or not) for a new one',
    description: 'The old token must be the current one of its user, with the right signature, algorithm and version; it is then replaced and can never be exchanged again.',
    security: [],
    requestBody: form({ token: { type: 'string', description: 'The token to exchange.' } }, ['token']),
    responses: {
      200: tokenAnswer('The new token.'),
      401: {
        description:
          'The token cannot be exchanged (`E_REAUTH_FAILED`); or, with token families (`store: \'table\'`), it was already ' +
          'replaced longer ago than the reuse window: its whole family is revoked (`E_TOKEN_REUSED`) and the client logs in again.',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            examples: {
              failed: { value: { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' } },
              reused: { value: { message: 'This token was already replaced: every token of its device is revoked. Log in again.', code: 'E_TOKEN_REUSED' } },
            },
          },
        },
      },
    },
  },
  'api.logout': {
    summary: 'End the presented token',
    security: [{ [JWT_SCHEME]: [] }],
    responses: {
      204: { description: 'The token was ended.' },
      401: ref('Unauthorized'),
    },
  },
  'api.revoke': {
    summary: 'Revoke a token (RFC 7009)',
    description: 'Answers 200 whether or not the token was valid, so the answer tells nothing about it.',
    security: [],
    requestBody: form({ token: { type: 'string' } }, ['token']),
    responses: {
      200: { description: 'Done (or nothing to do).', content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } } },
    },
  },
  'api.jwks': {
    summary: 'The public keys that verify this API\'s tokens (JWK Set, RFC 7517)',
    description: 'Only with an asymmetric algorithm (EdDSA, ES256, RS256); with HMAC there is no public key and the answer is 404.',
    security: [],
    responses: {
      200: {
        description: 'The JWK Set: the key that signs now, then the previous ones.',
        headers: { 'Cache-Control': { schema: { type: 'string' }, description: '`public, max-age=300`' } },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['keys'],
              properties: {
                keys: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['kty', 'kid', 'alg', 'use'],
                    properties: {
                      kty: { type: 'string', enum: ['OKP', 'EC', 'RSA'] },
                      kid: { type: 'string' },
                      alg: { type: 'string', enum: ['EdDSA', 'ES256', 'RS256'] },
                      use: { type: 'string', const: 'sig' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      404: ref('NotFound'),
    },
  },
  'api.openapi': {
    summary: 'This OpenAPI document',
    description: 'Served only when `DRIVERS.jwt.openapi` is true in config/api.ts (otherwise 404).',
    security: [],
    responses: {
      200: { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } },
      404: ref('NotFound'),
    },
  },
})
