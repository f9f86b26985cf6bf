/**
 * @module api/openapi/components
 * The reusable parts of the OpenAPI document: the two Bearer security schemes (the JWT of
 * `POST /api/auth`, and personal access tokens `trw_...`), the error bodies every API answer
 * shares (`{message, code}`, and `{message, code, errors}` for 422), and the error responses
 * built from them, with the headers RFC 6750 and RFC 9110 put on them.
 */
import type { MfaRequiredDoc } from '../../auth/features/contract.js'

/** Names of the security schemes in `components.securitySchemes`. */
export const JWT_SCHEME = 'bearerJwt'
export const PERSONAL_TOKEN_SCHEME = 'personalAccessToken'

const errorBody = (example: { message: string; code: string }) => ({
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
})

const wwwAuthenticate = {
  description: 'RFC 6750: `Bearer realm="api"` when no token came, `Bearer realm="api", error="invalid_token"` when it was refused.',
  schema: { type: 'string' },
}

const retryAfter = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } }

/** The reusable parts; `mfa`: how the feature serving the second step explains `E_MFA_REQUIRED`. */
export function components(mfa?: MfaRequiredDoc): Record<string, unknown> {
  return {
    securitySchemes: {
      [JWT_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A JSON Web Token from `POST /api/auth` (or `POST /api/reauth`), sent as `Authorization: Bearer <JWT>`. ' +
          'It carries every ability.',
      },
      [PERSONAL_TOKEN_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'trw_<id>_<secret><checksum>',
        description:
          'A personal access token (opaque, for scripts and CI), created on `/account/tokens` or with ' +
          '`node craft token:create`, sent as `Authorization: Bearer trw_...`. It carries the abilities it was ' +
          'created with; the roles listed in an operation\'s security requirement are the abilities it needs.',
      },
    },
    schemas: {
      Error: {
        type: 'object',
        description: 'Every error answer of the API.',
        required: ['message', 'code'],
        properties: {
          message: { type: 'string', description: 'For people; may change.' },
          code: { type: 'string', pattern: '^E_[A-Z0-9_]+$', description: 'For programs: match on this.' },
        },
      },
      ValidationError: {
        type: 'object',
        description: 'A 422 answer: one list of messages per failing field.',
        required: ['message', 'code', 'errors'],
        properties: {
          message: { type: 'string' },
          code: { type: 'string', const: 'E_VALIDATION' },
          errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
      },
      MfaChallenge: {
        type: 'object',
        description: mfa?.challenge ?? 'A right password of a user with a second factor: no token yet.',
        required: ['message', 'code', 'mfa_token'],
        properties: {
          message: { type: 'string' },
          code: { type: 'string', const: 'E_MFA_REQUIRED' },
          mfa_token: { type: 'string', description: 'Single use; good for 5 minutes and 5 wrong codes a minute.' },
        },
      },
      Token: {
        type: 'object',
        required: ['data'],
        properties: { data: { type: 'string', description: 'A compact JWT.' } },
      },
    },
    responses: {
      BadRequest: { description: 'The body cannot be read (malformed JSON).', ...errorBody({ message: 'Bad request.', code: 'E_BAD_REQUEST' }) },
      Unauthorized: {
        description: 'No Bearer token (`E_TOKEN_MISSING`), or an invalid, expired or revoked one (`E_TOKEN_INVALID`).',
        headers: { 'WWW-Authenticate': wwwAuthenticate },
        ...errorBody({ message: 'Token invalid. Try reauthenticating.', code: 'E_TOKEN_INVALID' }),
      },
      Forbidden: {
        description: 'The token lacks an ability the route needs (RFC 6750 `insufficient_scope`).',
        headers: { 'WWW-Authenticate': { description: '`Bearer realm="api", error="insufficient_scope", scope="<ability>"`', schema: { type: 'string' } } },
        ...errorBody({ message: 'Forbidden.', code: 'E_FORBIDDEN' }),
      },
      MfaRequired: {
        description: mfa?.stepUp ?? 'The route needs a login with a second factor (`mfa`).',
        ...errorBody({ message: 'This action needs a login with a second factor.', code: 'E_MFA_REQUIRED' }),
      },
      NotFound: { description: 'No such route or record.', ...errorBody({ message: 'Not found.', code: 'E_NOT_FOUND' }) },
      PayloadTooLarge: { description: 'The body is over the limit (1 MiB by default).', ...errorBody({ message: 'Payload too large.', code: 'E_PAYLOAD_TOO_LARGE' }) },
      UnsupportedMediaType: {
        description: 'The body is not JSON, `application/x-www-form-urlencoded` or `multipart/form-data`.',
        ...errorBody({ message: 'Unsupported media type.', code: 'E_UNSUPPORTED_MEDIA_TYPE' }),
      },
      ValidationFailed: {
        description: 'Invalid input.',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ValidationError' },
            example: { message: 'The given data was invalid.', code: 'E_VALIDATION', errors: { field: ['The field field is required.'] } },
          },
        },
      },
      TooManyRequests: {
        description: 'Throttled.',
        headers: { 'Retry-After': retryAfter },
        ...errorBody({ message: 'Too many requests.', code: 'E_TOO_MANY_REQUESTS' }),
      },
      InternalError: { description: 'An unexpected failure (logged; no details).', ...errorBody({ message: 'Internal server error.', code: 'E_INTERNAL' }) },
      ServiceUnavailable: {
        description: 'A service the request needs is unreachable, or the server is busy.',
        headers: { 'Retry-After': retryAfter },
        ...errorBody({ message: 'Service unavailable.', code: 'E_UNAVAILABLE' }),
      },
    },
  }
}

export const ref = (name: string) => ({ $ref: `#/components/responses/${name}` })
