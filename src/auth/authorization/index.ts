/**
 * @module auth/authorization
 * Gates, policies, `ctx.auth.can()` / `authorize()` / `ctx.authorize()` and the `can:` middleware.
 */
export { Gate, gateOf, installGate, registerAbilitySource, type UserGate } from './gate.js'
export { GateRegistry, policyMethod } from './gate-registry.js'
export { CanMiddleware } from './can-middleware.js'
export { requestAllows } from './request-gate.js'
import './context-authorize.js'
export { forbidden, UNAUTHORIZED_ACTION } from './errors.js'
export type { AbilitySource, GateCheck, GateOptions, GateSubject, MembershipRecord, ModelClass, OrganizationRecord, PolicyClass } from './types.js'
