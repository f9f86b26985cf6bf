/**
 * @module api/openapi/web-operations
 * `craft openapi --web`: the web pages and forms that answer JSON (`session/json-forms`: every route
 * of `Auth.routes()` and the tokens page but the browser navigations, and any route marked
 * `.form()`), plus `GET /csrf-token`, added to the API's document. They are called with the
 * session cookie (`trowel_session`) and, for a POST, the CSRF token as `X-CSRF-TOKEN`. Answers:
 * `{"data": ...}` (201 for a create; `redirect` where a page would redirect, `message` for what
 * it would flash) or the errors of `docs/errors.md`, chosen from the route's middleware.
 */
import type { CompiledRoute } from '../../routing/router.js'
import type { MiddlewareReference } from '../../routing/route-definition.js'
import type { MfaRequiredDoc, WebFormDoc } from '../../auth/features/contract.js'
import { openApiPaths, type OpenApiDocument } from './document.js'
import { ref } from './components.js'

/** The name of the session cookie's security scheme. */
export const SESSION_SCHEME = 'sessionCookie'

const text = { type: 'string' }
const password = { type: 'string', format: 'password', minLength: 8, maxLength: 1024 }
const flag = { type: ['boolean', 'string'], description: '`1`, `on`, `true` or `yes` when ticked.' }

/** The fields each core form reads (by route name); a feature's forms are its `openapi.forms`; forms not listed take a free-form object. */
const FORM_FIELDS: Record<string, NonNullable<WebFormDoc['fields']>> = {
  'login.store': { required: ['email', 'password'], properties: { email: text, password: { type: 'string', format: 'password' }, remember: flag, next: { type: 'string', description: 'A same-site path to land on.' } } },
  'register.store': { required: ['name', 'email', 'password', 'password_confirmation'], properties: { name: text, email: { type: 'string', format: 'email' }, password, password_confirmation: password } },
  'password.send': { required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
  'password.update': { required: ['password', 'password_confirmation'], properties: { password, password_confirmation: password } },
  'password.update.field': { required: ['token', 'password', 'password_confirmation'], properties: { token: text, password, password_confirmation: password } },
  'password.confirm.store': { required: ['password'], properties: { password: { type: 'string', format: 'password' } } },
  'account.profile': { required: ['name'], properties: { name: text, email: { type: 'string', format: 'email' } } },
  'account.email': { required: ['email', 'password'], properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', format: 'password' } } },
  'account.password': { required: ['password', 'password_confirmation'], properties: { current_password: { type: 'string', format: 'password', description: 'Required when the account has a password.' }, password, password_confirmation: password } },
  'login.email.send': { required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
  'login.email.code': { required: ['email', 'code'], properties: { email: { type: 'string', format: 'email' }, code: { type: 'string', pattern: '^[0-9]{6}$' } } },
  'account.tokens.store': { required: ['name'], properties: { name: text, abilities: { type: 'array', items: text }, expires: { type: 'string', description: 'Days (`30`, `90`...) or `none`.' } } },
}

/** Core forms that take slots of a budget (429 `E_TOO_MANY_REQUESTS`). */
const THROTTLED = new Set(['login.store', 'register.store', 'password.send', 'password.confirm.store', 'account.password', 'account.email', 'verification.send', 'login.email.send', 'login.email.code'])

const has = (middleware: MiddlewareReference[], name: string) => middleware.some((m) => m === name || (typeof m === 'string' && m.startsWith(`${name}:`)))

const error = (description: string, code: string, message: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { message, code } } },
})

function answer(created: boolean, route: CompiledRoute): Record<string, unknown> {
  const description = created ? 'Created.' : 'Done (a page: its data).'
  const schema = { $ref: '#/components/schemas/FormAnswer' }
  return { description: `${description} Handled by ${typeof route.definition.handler === 'string' ? `\`${route.definition.handler}\`` : 'the framework'}.`, content: { 'application/json': { schema } } }
}

/** What the features say of their web forms (`openapi.forms`), and of `E_MFA_REQUIRED` at login (`openapi.mfaRequired.webLogin`). */
export interface FeatureForms {
  forms?: Readonly<Record<string, WebFormDoc>>
  mfaRequired?: Pick<MfaRequiredDoc, 'webLogin'>
}

function webOperation(route: CompiledRoute, method: string, params: { name: string }[], { forms = {}, mfaRequired }: FeatureForms): Record<string, any> {
  const name = route.name ?? route.definition.routeName ?? ''
  const doc = Object.hasOwn(forms, name) ? forms[name] : undefined
  const created = route.info.form === 'create'
  const post = method === 'post'
  const middleware = route.middleware
  const responses: Record<string, unknown> = { [created && post ? 201 : 200]: answer(created && post, route) }
  if (name === 'login.store') {
    const mfa = mfaRequired ? `${mfaRequired.webLogin}, ` : ''
    responses[401] = error(`A wrong e-mail or password (\`E_INVALID_CREDENTIALS\`), ${mfa}or a password locked until a reset (\`E_PASSWORD_RESET_REQUIRED\`).`, 'E_INVALID_CREDENTIALS', 'The email or password is incorrect.')
  } else if (has(middleware, 'auth') || has(middleware, 'password.confirm') || doc?.unauthorized) {
    responses[401] = error('Not logged in.', 'E_UNAUTHORIZED', 'Unauthenticated.')
  }
  if (has(middleware, 'verified')) responses[403] = error('The address is not verified yet (`E_EMAIL_NOT_VERIFIED`), or a second factor is needed first (`E_MFA_REQUIRED`).', 'E_EMAIL_NOT_VERIFIED', 'Your email address is not verified.')
  else if (has(middleware, 'mfa') || has(middleware, 'mfa.recent')) responses[403] = error('The login has no recent second factor.', 'E_MFA_REQUIRED', 'This action needs a login with a second factor.')
  if (params.length > 0) responses[404] = ref('NotFound')
  if (has(middleware, 'password.confirm')) responses[423] = error('The password was not typed recently: `POST /confirm-password` first.', 'E_PASSWORD_CONFIRMATION_REQUIRED', 'Please confirm your password first.')
  if (post) {
    responses[400] = ref('BadRequest')
    responses[409] = error('The form was refused as things stand (a flashed error).', 'E_CONFLICT', 'That cannot be done.')
    responses[413] = ref('PayloadTooLarge')
    responses[419] = error('No CSRF token, or a stale one: read one from `GET /csrf-token`.', 'E_CSRF', 'Page expired: the form was stale or forged. Reload and try again.')
    responses[422] = ref('ValidationFailed')
  }
  if (THROTTLED.has(name) || doc?.throttled) responses[429] = ref('TooManyRequests')
  responses[500] = ref('InternalError')
  const operation: Record<string, any> = {
    summary: `${method.toUpperCase()} ${route.path} (web${post ? ' form' : ' page'})`,
    tags: ['Web'],
    security: has(middleware, 'auth') ? [{ [SESSION_SCHEME]: [] }] : [{}, { [SESSION_SCHEME]: [] }],
    responses,
  }
  if (post) {
    operation.parameters = [{ name: 'X-CSRF-TOKEN', in: 'header', required: true, description: 'The session\'s CSRF token (`GET /csrf-token`; rotated tokens come back in this header).', schema: { type: 'string' } }]
    const fields = FORM_FIELDS[name] ?? doc?.fields
    const schema = fields ? { type: 'object', ...(fields.required ? { required: fields.required } : {}), properties: fields.properties } : { type: 'object' }
    operation.requestBody = { required: Boolean(fields?.required), content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } }
  }
  return operation
}

const CSRF_OPERATION = {
  operationId: 'csrf_token',
  summary: 'The session\'s CSRF token (starts the session)',
  tags: ['Web'],
  security: [],
  responses: {
    200: {
      description: 'The token to send as `X-CSRF-TOKEN` with every web form.',
      content: { 'application/json': { schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } } } },
    },
  },
}

/** Adds the web forms of `routes` to `document` (see the module comment), with what the features say of theirs. */
export function addWebOperations(document: OpenApiDocument, routes: readonly CompiledRoute[], features: FeatureForms = {}): void {
  const used = new Set<string>()
  for (const item of Object.values(document.paths)) for (const op of Object.values<any>(item)) if (op?.operationId) used.add(op.operationId)
  const uniqueId = (id: string) => {
    let candidate = id
    for (let n = 2; used.has(candidate); n++) candidate = `${id}_${n}`
    used.add(candidate)
    return candidate
  }
  for (const route of routes) {
    if (route.path === '/csrf-token' && route.methods.includes('GET')) {
      ;(document.paths['/csrf-token'] ??= {}).get ??= { ...CSRF_OPERATION, operationId: uniqueId(CSRF_OPERATION.operationId) }
      continue
    }
    if (route.info.form !== 'form' && route.info.form !== 'create') continue
    const methods = route.methods.map((m) => m.toLowerCase()).filter((m) => m === 'get' || m === 'post')
    for (const { path, params } of openApiPaths(route.path)) {
      const item = (document.paths[path] ??= {})
      if (params.length > 0 && !item.parameters) item.parameters = params.map((p) => ({ name: p.name, in: 'path', required: true, schema: p.integer ? { type: 'integer', minimum: 0 } : { type: 'string' } }))
      methods.forEach((method, i) => {
        if (item[method]) return
        const name = route.name ?? route.definition.routeName
        const id = name ? (i === 0 ? name : `${name}.${method}`) : `web_${method}_${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`
        item[method] = { operationId: uniqueId(id), ...webOperation(route, method, params, features) }
      })
    }
  }
  const components = document.components as Record<string, any>
  components.securitySchemes[SESSION_SCHEME] = {
    type: 'apiKey',
    in: 'cookie',
    name: 'trowel_session',
    description: 'The web session (a same-site SPA: `credentials: "include"`), with `trowel_auth` once logged in. POSTs also send `X-CSRF-TOKEN`.',
  }
  components.schemas.FormAnswer = {
    type: 'object',
    required: ['data'],
    description: 'A web page or form answering JSON: its data; `redirect` where the page would go next, `message` what it would show.',
    properties: {
      data: {
        type: ['object', 'array'],
        properties: { redirect: { type: 'string' }, message: { type: 'string' } },
      },
    },
  }
  const tags = (document.tags ??= []) as { name: string }[]
  if (!tags.some((t) => t.name === 'Web')) tags.push({ name: 'Web' })
}
