/**
 * @module api/features
 * THE API feature list: every piece of the JWT API, in the order `Api.routes()` lists their
 * routes and ApiProvider boots them. A new piece adds its import and its entry here, and touches
 * nothing else outside its folder.
 */
import type { ApiFeatureModule } from './contract.js'
import { personalTokensFeature } from '../personal-tokens/feature.js'
import { tokenRoutesFeature } from '../token-routes/feature.js'
import { epochsFeature } from '../revocation/feature.js'
import { familiesFeature } from '../families/feature.js'
import { jwksFeature } from '../jwks/feature.js'
import { openapiFeature } from '../openapi/feature.js'

let list: readonly ApiFeatureModule<unknown>[] | undefined

/**
 * THE list, in order (the tokens page first, the OpenAPI document last). A function, as the auth
 * features' list is: built on first call, when every module has loaded.
 */
export function apiFeatures(): readonly ApiFeatureModule<unknown>[] {
  list ??= Object.freeze([personalTokensFeature, tokenRoutesFeature, epochsFeature, familiesFeature, jwksFeature, openapiFeature])
  return list
}

export { personalTokensFeature, tokenRoutesFeature, epochsFeature, familiesFeature, jwksFeature, openapiFeature }
export { defineApiFeature, type ApiFeatureModule, type ApiRoutesOptions, type ApiOptionsContext } from './contract.js'
