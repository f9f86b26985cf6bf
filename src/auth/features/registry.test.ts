/**
 * The feature list and what the core reads from it: `GUARDS.features` names (an unknown one named
 * with the known ones), requirements (both features named), budget and notification defaults,
 * routes of the features that are on, and the files `craft auth` writes for each feature.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { Route } from '../../routing/route.js'
import { resolveAuthConfig } from '../auth-config.js'
import { authRoutes, authRoutesFor } from '../auth-routes.js'
import { Router } from '../../routing/router.js'
import { defineFeature } from './contract.js'
import { authFeatures } from './index.js'
import { featureApiRoutes, featureBudgets, featureOpenApi, featureRoutes, generatedFeatures, installFeatures, registerFeatures, resolveFeatureNames, secondStepApiRoutes, secondStepOf } from './registry.js'
import type { Application } from '../../foundation/application.js'
import type { ResolvedAuthConfig } from '../auth-config.js'
import type { MiddlewareClass } from '../../http/middleware.js'
import { activityLabels, describeEvent } from '../account-pages/activity-forms.js'
import { securityNoticeRules } from '../accounts/security-notifications.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const alpha = defineFeature({ name: 'alpha', budgets: { alpha_try: { attempts: 3, minutes: 1 } }, routes: () => [Route.get('/alpha', () => 'a').name('alpha')] })
const beta = defineFeature({ name: 'beta', requires: ['alpha'], apiRoutes: ({ authRoute }) => [Route.post(`${authRoute}/beta`, () => 'b').name('api.beta')] })
const LIST = [alpha, beta]
/** An app as the routes see it: its feature list is THE list. */
const APP = { has: (key: string) => key === 'auth.features', make: () => authFeatures(), get: () => undefined } as unknown as Application

describe('the feature registry', () => {
  it('refuses an unknown feature, naming it and the known ones', () => {
    assert.throws(() => resolveFeatureNames(['alpha', 'gamma'], [], LIST), /"gamma" is not a feature \(alpha, beta\)/)
    assert.throws(() => resolveFeatureNames('alpha', [], LIST), /must be a list of features \(alpha, beta\)/)
    assert.throws(() => resolveAuthConfig({ default: 'web', features: ['registration', 'sso'] }, { requireModel: false, features: authFeatures() }), /"sso" is not a feature \(registration, reset_passwords, .*email_login/)
  })

  it('refuses a feature whose requirement is off, naming both', () => {
    assert.throws(() => resolveFeatureNames(['beta'], [], LIST), /"beta" needs "alpha"/)
    assert.deepEqual([...resolveFeatureNames(['beta', 'alpha'], [], LIST)], ['beta', 'alpha'])
    assert.deepEqual([...resolveFeatureNames(undefined, ['alpha'], LIST)], ['alpha'])
  })

  it('takes budget defaults from the modules and refuses a budget owned twice', () => {
    assert.deepEqual(featureBudgets(LIST), { alpha_try: { attempts: 3, minutes: 1 } })
    assert.throws(() => featureBudgets([alpha, defineFeature({ name: 'alpha2', budgets: { alpha_try: { attempts: 1, minutes: 1 } } })]), /own the budget "alpha_try"/)
    const resolved = resolveAuthConfig({ default: 'web' }, { requireModel: false, features: authFeatures() })
    assert.deepEqual(resolved.throttle.email_login, { attempts: 10, minutes: 1 })
    assert.deepEqual(resolved.throttle.email_code, [
      { attempts: 10, minutes: 60 },
      { attempts: 20, minutes: 1440 },
    ])
    assert.deepEqual(resolved.throttle.login, { attempts: 5, minutes: 1 })
    // A list budget takes one limit or a list; a one-limit budget refuses a list.
    assert.deepEqual(resolveAuthConfig({ default: 'web', throttle: { email_code: { attempts: 2, minutes: 5 } } }, { requireModel: false, features: authFeatures() }).throttle.email_code, { attempts: 2, minutes: 5 })
    assert.throws(() => resolveAuthConfig({ default: 'web', throttle: { login: [{ attempts: 2, minutes: 5 }] } }, { requireModel: false, features: authFeatures() }), /GUARDS\.throttle\.login must be/)
    assert.throws(() => resolveAuthConfig({ default: 'web', throttle: { email_code: [{ attempts: 0, minutes: 5 }] } }, { requireModel: false, features: authFeatures() }), /GUARDS\.throttle\.email_code must be/)
  })

  it('takes notification names from the core and the modules', () => {
    const resolved = resolveAuthConfig({ default: 'web', notifications: { passkeys: true, new_device: true } }, { requireModel: false, features: authFeatures() })
    assert.deepEqual(Object.keys(resolved.notifications).sort(), ['account_locked', 'email_changed', 'new_device', 'passkeys', 'password_changed', 'second_factor_failed', 'social_linked', 'token_created', 'token_reuse', 'two_factor'])
    assert.equal(resolved.notifications.passkeys, true)
    assert.equal(resolved.notifications.two_factor, false)
    assert.throws(() => resolveAuthConfig({ default: 'web', notifications: { sms: true } }, { requireModel: false, features: authFeatures() }), /GUARDS\.notifications\.sms is not a notification \(.*two_factor.*passkeys\)/)
  })

  it('adds the routes of the features that are on only', () => {
    assert.deepEqual(featureRoutes(new Set(['alpha']), LIST, APP).map((r) => r.path), ['/alpha'])
    assert.deepEqual(featureRoutes(new Set(), LIST, APP), [])
    assert.deepEqual(featureApiRoutes(new Set(['alpha', 'beta']), { authRoute: '/api/auth' }, LIST, APP).map((r) => r.path), ['/api/auth/beta'])
    const paths = (features: string[]) => authRoutesFor(APP, { features }).map((r) => `${r.methods[0]} ${r.path}`)
    assert.ok(paths(['email_login']).includes('POST /login/email/@token'))
    assert.ok(!paths(['registration']).includes('GET /login/email'))
    // A page two features share is listed once, whichever of them is on.
    for (const on of [['account'], ['email_verification'], ['account', 'email_verification']]) assert.equal(paths(on).filter((p) => p === 'GET /email/verify/@token').length, 1)
  })

  it('stops the boot when two features that are on declare the same method and path, naming both', () => {
    const twin = defineFeature({ name: 'twin', routes: () => [Route.get('/alpha', () => 'other').name('twin')] })
    const param = (name: string, path: string) => defineFeature({ name, routes: () => [Route.post(path, () => name)] })
    assert.throws(() => featureRoutes(new Set(['alpha', 'twin']), [alpha, twin], APP), /"alpha" and "twin" both declare GET \/alpha/)
    assert.throws(() => featureRoutes(new Set(['p1', 'p2']), [param('p1', '/x/@id'), param('p2', '/x/@token')], APP), /"p1" and "p2" both declare POST \/x\/@token/)
    const api = defineFeature({ name: 'api2', apiRoutes: ({ authRoute }) => [Route.post(`${authRoute}/beta`, () => 'c')] })
    assert.throws(() => featureApiRoutes(new Set(['alpha', 'beta', 'api2']), { authRoute: '/api/auth' }, [alpha, beta, api], APP), /"beta" and "api2" both declare POST \/api\/auth\/beta/)
    // Off, a twin is no conflict.
    assert.deepEqual(featureRoutes(new Set(['alpha']), [alpha, twin], APP).map((r) => r.routeName), ['alpha'])
  })

  it('Auth.routes() is expanded by the router with the features of the app that mounts it', () => {
    const mounted = (on: string[] | undefined) => {
      const config = on ? { features: new Set(on) } : undefined
      const owner = { ...APP, get: (key: string) => (key === 'auth.config' ? config : undefined) } as unknown as Application
      return new Router(owner).mount(authRoutes()).map((r) => `${r.methods[0]} ${r.path}`)
    }
    assert.ok(mounted(['email_login']).includes('POST /login/email/@token'))
    assert.ok(!mounted(['registration']).includes('POST /login/email/@token'))
    // No GUARDS in config/auth.ts: the legacy pages (registration, resets).
    assert.ok(mounted(undefined).includes('GET /register'))
    assert.ok(!mounted(undefined).includes('GET /login/email'))
    assert.throws(() => new Router().mount(authRoutes()), /mount them on app\.router/)
  })

  it('serves the second step once, after the first feature on that offers a second factor, whoever owns it', () => {
    const factor = () => ({ enrolled: async () => false, enrolPage: '/enrol' })
    const owner = defineFeature({ name: 'owner', secondFactor: factor, secondStep: { page: '/step', routes: () => [Route.get('/step', () => 's').name('step')] }, routes: () => [Route.get('/owner', () => 'o').name('owner')] })
    const other = defineFeature({ name: 'other', secondFactor: factor, routes: () => [Route.get('/other', () => 'x').name('other')] })
    const plain = defineFeature({ name: 'plain', routes: () => [Route.get('/plain', () => 'p').name('plain')] })
    const list = [owner, other, plain]
    const paths = (on: string[]) => featureRoutes(new Set(on), list, APP).map((r) => r.path)
    assert.deepEqual(paths(['owner']), ['/owner', '/step'])
    assert.deepEqual(paths(['other']), ['/other', '/step'], 'served by its owner while the owner is off')
    assert.deepEqual(paths(['owner', 'other', 'plain']), ['/owner', '/step', '/other', '/plain'])
    assert.deepEqual(paths(['plain']), ['/plain'], 'no second factor on: no second step')
    assert.equal(secondStepOf(new Set(['other']), list)?.page, '/step')
    assert.equal(secondStepOf(new Set(['plain']), list), undefined)
  })

  it('lists the API second step of the first feature that has one, whatever the features, with the API\'s context', () => {
    const seen: string[] = []
    const step = (name: string) =>
      defineFeature({
        name,
        secondStep: {
          page: '/step',
          routes: () => [],
          apiRoutes: (api) => {
            seen.push(`${name} ${api.guard}`)
            return [Route.post(`${api.authRoute}/step`, () => '').name(`api.${name}`)]
          },
        },
      })
    const api = { authRoute: '/token', guard: 'jwt', user: async () => null }
    const plain = defineFeature({ name: 'plain' })
    assert.deepEqual(secondStepApiRoutes(api, [plain, step('first'), step('second')]).map((r) => `${r.path} ${r.routeName}`), ['/token/step api.first'])
    assert.deepEqual(seen, ['first jwt'])
    assert.deepEqual(secondStepApiRoutes(api, [plain]), [], 'no feature serves one: no route')
  })

  it('merges the features\' OpenAPI descriptions by route name, the first feature\'s winning', () => {
    const first = defineFeature({ name: 'first', openapi: { operations: { 'api.a': { summary: 'A' } }, forms: { 'a.store': { throttled: true } } } })
    const mfa = (word: string) => ({ webLogin: word, tokenLogin: word, challenge: word, stepUp: word })
    const second = defineFeature({ name: 'second', openapi: { operations: { 'api.a': { summary: 'other' }, 'api.b': { summary: 'B' } }, mfaRequired: mfa('second') } })
    const third = defineFeature({ name: 'third', openapi: { mfaRequired: mfa('third') } })
    const merged = featureOpenApi([defineFeature({ name: 'plain' }), first, second, third])
    assert.deepEqual(merged.operations, { 'api.a': { summary: 'A' }, 'api.b': { summary: 'B' } })
    assert.deepEqual(merged.forms, { 'a.store': { throttled: true } })
    assert.deepEqual(merged.mfaRequired, mfa('second'))
    assert.deepEqual(featureOpenApi([]), { operations: {}, forms: {} })
  })

  it('adds a feature\'s activity labels and security notices to the core\'s, on or not', () => {
    const noisy = defineFeature({
      name: 'noisy',
      activityLabels: { 'auth:noisy_done': 'Noise made' },
      securityNotices: { 'auth:noisy_done': { notification: 'new_device', kind: 'new_device', subject: 'Noise', summary: (e) => `Noise ${String(e.level)}`, when: (e) => e.level === 2 } },
    })
    const labels = activityLabels([noisy])
    assert.equal(describeEvent('auth:noisy_done', {}, labels), 'Noise made')
    assert.equal(describeEvent('auth:login_succeeded', {}, labels), 'Signed in')
    assert.equal(describeEvent('auth:noisy_done'), 'Noisy done', 'without the list: the name in words')
    const rules = securityNoticeRules([noisy])
    assert.equal(rules['auth:password_changed']?.subject, 'Your password was changed')
    assert.equal(rules['auth:login_succeeded']?.when?.({ knownDevice: false }), true)
    assert.equal(rules['auth:noisy_done']?.summary({ level: 2 }), 'Noise 2')
    assert.equal(rules['auth:noisy_done']?.when?.({ level: 1 }), false)
    assert.equal(securityNoticeRules([])['auth:noisy_done'], undefined)
  })

  it('boots only the features that are on: middleware when absent, install, login challenge, second factor; register always', async () => {
    const calls: string[] = []
    const Own = class {} as unknown as MiddlewareClass
    const Theirs = class {} as unknown as MiddlewareClass
    const step = async () => {}
    const factor = { enrolled: async () => true, enrolPage: '/enrol' }
    const secondStep = { page: '/step', routes: () => [], failedEvent: 'auth:login_failed' as const }
    const on = defineFeature({ name: 'on', middleware: { mine: [Theirs], taken: [Theirs] }, install: () => void calls.push('install on'), loginChallenge: () => step, secondFactor: () => factor, register: () => void calls.push('register on') })
    const off = defineFeature({ name: 'off', middleware: { other: [Theirs] }, install: () => void calls.push('install off'), loginChallenge: () => step, secondFactor: () => factor, secondStep, register: () => void calls.push('register off') })
    const manager = { challenges: [] as unknown[], secondFactors: [] as unknown[], secondStepPage: null as string | null, secondStepFailedEvent: null as string | null }
    const app = { kernel: { routeMiddleware: { taken: [Own] } as Record<string, MiddlewareClass[]> }, make: () => manager } as unknown as Application
    registerFeatures(app, [on, off])
    await installFeatures(app, { features: new Set(['on']) } as unknown as ResolvedAuthConfig, [on, off])
    assert.deepEqual(calls, ['register on', 'register off', 'install on'])
    assert.deepEqual(app.kernel.routeMiddleware, { taken: [Own], mine: [Theirs] })
    assert.deepEqual(manager.challenges, [step])
    assert.deepEqual(manager.secondFactors, [factor])
    assert.equal(manager.secondStepPage, '/step', 'the second step of a feature that is off serves one that is on')
    assert.equal(manager.secondStepFailedEvent, 'auth:login_failed', 'and names the event of a refused answer')
  })

  it('names each feature once, and every file its scaffold names exists', () => {
    const names = authFeatures().map((f) => f.name)
    assert.equal(new Set(names).size, names.length)
    const folders = { controllers: 'stubs/auth/controllers', mailables: 'stubs/auth/mailables', templates: 'templates/auth', mailTemplates: 'templates/mailables/auth' } as const
    for (const feature of authFeatures()) {
      for (const migration of feature.scaffold?.migrations ?? []) assert.ok(existsSync(`${ROOT}stubs/migrations/${migration}.ts`), `${feature.name}: ${migration}`)
      for (const [key, folder] of Object.entries(folders)) {
        for (const file of feature.scaffold?.[key as keyof typeof folders] ?? []) assert.ok(existsSync(`${ROOT}${folder}/${file}`), `${feature.name}: ${folder}/${file}`)
      }
    }
  })

  it('every feature module loads as the first module of a process (no import cycle reaching the list too early)', async () => {
    const modules = readdirSync(`${ROOT}src/auth`).filter((dir) => existsSync(`${ROOT}src/auth/${dir}/feature.ts`))
    assert.ok(modules.length >= authFeatures().length)
    const script = `for (const dir of ${JSON.stringify(modules)}) await import('./src/auth/' + dir + '/feature.ts').catch((e) => { console.error(dir + ': ' + e.message); process.exitCode = 1 })`
    // One process per module: each must be the first to load.
    for (const dir of modules) {
      const one = script.replace(JSON.stringify(modules), JSON.stringify([dir]))
      const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', one], { cwd: ROOT }).catch((e: { stderr: string }) => ({ stderr: e.stderr }))
      assert.equal(stderr.trim(), '', dir)
    }
  })

  it('the generated config/auth.ts lists the generated features', () => {
    const stub = readFileSync(`${ROOT}stubs/app/config/auth.ts`, 'utf8')
    const line = /^\s*features: \[(.*)\],$/m.exec(stub)
    assert.ok(line, 'stubs/app/config/auth.ts has a features line')
    assert.deepEqual(line[1]!.split(',').map((s) => s.trim().replace(/'/g, '')), generatedFeatures(authFeatures()))
  })
})
