/**
 * The feature list and what the core reads from it: `GUARDS.features` names (an unknown one named
 * with the known ones), requirements (both features named), budget and notification defaults,
 * routes of the features that are on, and the files `craft auth` writes for each feature.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Route } from '../../routing/route.js'
import { resolveAuthConfig } from '../auth-config.js'
import { authRoutes } from '../auth-routes.js'
import { defineFeature } from './contract.js'
import { FEATURES } from './index.js'
import { featureApiRoutes, featureBudgets, featureRoutes, generatedFeatures, resolveFeatureNames } from './registry.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const alpha = defineFeature({ name: 'alpha', budgets: { alpha_try: { attempts: 3, minutes: 1 } }, routes: () => [Route.get('/alpha', () => 'a').name('alpha')] })
const beta = defineFeature({ name: 'beta', requires: ['alpha'], apiRoutes: ({ authRoute }) => [Route.post(`${authRoute}/beta`, () => 'b').name('api.beta')] })
const LIST = [alpha, beta]

describe('the feature registry', () => {
  it('refuses an unknown feature, naming it and the known ones', () => {
    assert.throws(() => resolveFeatureNames(['alpha', 'gamma'], [], LIST), /"gamma" is not a feature \(alpha, beta\)/)
    assert.throws(() => resolveFeatureNames('alpha', [], LIST), /must be a list of features \(alpha, beta\)/)
    assert.throws(() => resolveAuthConfig({ default: 'web', features: ['registration', 'sso'] }, { requireModel: false }), /"sso" is not a feature \(registration, reset_passwords, .*email_login/)
  })

  it('refuses a feature whose requirement is off, naming both', () => {
    assert.throws(() => resolveFeatureNames(['beta'], [], LIST), /"beta" needs "alpha"/)
    assert.deepEqual([...resolveFeatureNames(['beta', 'alpha'], [], LIST)], ['beta', 'alpha'])
    assert.deepEqual([...resolveFeatureNames(undefined, ['alpha'], LIST)], ['alpha'])
  })

  it('takes budget defaults from the modules and refuses a budget owned twice', () => {
    assert.deepEqual(featureBudgets(LIST), { alpha_try: { attempts: 3, minutes: 1 } })
    assert.throws(() => featureBudgets([alpha, defineFeature({ name: 'alpha2', budgets: { alpha_try: { attempts: 1, minutes: 1 } } })]), /own the budget "alpha_try"/)
    const resolved = resolveAuthConfig({ default: 'web' }, { requireModel: false })
    assert.deepEqual(resolved.throttle.email_login, { attempts: 10, minutes: 1 })
    assert.deepEqual(resolved.throttle.email_code, [
      { attempts: 10, minutes: 60 },
      { attempts: 20, minutes: 1440 },
    ])
    assert.deepEqual(resolved.throttle.login, { attempts: 5, minutes: 1 })
    // A list budget takes one limit or a list; a one-limit budget refuses a list.
    assert.deepEqual(resolveAuthConfig({ default: 'web', throttle: { email_code: { attempts: 2, minutes: 5 } } }, { requireModel: false }).throttle.email_code, { attempts: 2, minutes: 5 })
    assert.throws(() => resolveAuthConfig({ default: 'web', throttle: { login: [{ attempts: 2, minutes: 5 }] } }, { requireModel: false }), /GUARDS\.throttle\.login must be/)
    assert.throws(() => resolveAuthConfig({ default: 'web', throttle: { email_code: [{ attempts: 0, minutes: 5 }] } }, { requireModel: false }), /GUARDS\.throttle\.email_code must be/)
  })

  it('adds the routes of the features that are on only', () => {
    assert.deepEqual(featureRoutes(new Set(['alpha']), LIST).map((r) => r.path), ['/alpha'])
    assert.deepEqual(featureRoutes(new Set(), LIST), [])
    assert.deepEqual(featureApiRoutes(new Set(['alpha', 'beta']), { authRoute: '/api/auth' }, LIST).map((r) => r.path), ['/api/auth/beta'])
    const paths = (features: string[]) => authRoutes({ features }).map((r) => `${r.methods[0]} ${r.path}`)
    assert.ok(paths(['email_login']).includes('POST /login/email/@token'))
    assert.ok(!paths(['registration']).includes('GET /login/email'))
    // A page two features share is listed once, whichever of them is on.
    for (const on of [['two_factor'], ['passkeys'], ['two_factor', 'passkeys']]) assert.equal(paths(on).filter((p) => p === 'GET /two-factor-challenge').length, 1)
    for (const on of [['account'], ['email_verification'], ['account', 'email_verification']]) assert.equal(paths(on).filter((p) => p === 'GET /email/verify/@token').length, 1)
  })

  it('names each feature once, and every file its scaffold names exists', () => {
    const names = FEATURES.map((f) => f.name)
    assert.equal(new Set(names).size, names.length)
    const folders = { controllers: 'stubs/auth/controllers', mailables: 'stubs/auth/mailables', templates: 'templates/auth', mailTemplates: 'templates/mailables/auth' } as const
    for (const feature of FEATURES) {
      for (const migration of feature.scaffold?.migrations ?? []) assert.ok(existsSync(`${ROOT}stubs/migrations/${migration}.ts`), `${feature.name}: ${migration}`)
      for (const [key, folder] of Object.entries(folders)) {
        for (const file of feature.scaffold?.[key as keyof typeof folders] ?? []) assert.ok(existsSync(`${ROOT}${folder}/${file}`), `${feature.name}: ${folder}/${file}`)
      }
    }
  })

  it('the generated config/auth.ts lists the generated features', () => {
    const stub = readFileSync(`${ROOT}stubs/app/config/auth.ts`, 'utf8')
    const line = /^\s*features: \[(.*)\],$/m.exec(stub)
    assert.ok(line, 'stubs/app/config/auth.ts has a features line')
    assert.deepEqual(line[1]!.split(',').map((s) => s.trim().replace(/'/g, '')), generatedFeatures())
  })
})
