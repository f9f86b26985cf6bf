/**
 * @module foundation/bootstrap
 * Builds an application from an app folder:
 * 1. `.env` is loaded (the process environment always wins);
 * 2. every `config/*.ts` is imported (`app.config('auth')` → its exports);
 * 3. `Kernel.ts` is instantiated;
 * 4. the framework's core providers, then `PROVIDERS` from `config/providers.ts`, are registered;
 * 5. `kernel.registerRoutes()` binds the route file locations;
 * 6. providers boot (ApiProvider mounts `routes.api.location` here);
 * 7. `routes.location`'s `ROUTES` are mounted in the `web` stack;
 * 8. every handler and middleware is resolved, so mistakes stop the app now, not at request time.
 * TypeScript files are loaded through tsx, which the CLI registers before calling this.
 */
import { existsSync, readdirSync } from 'node:fs'
import { config as loadDotenv } from 'dotenv'
import { Application } from './application.js'
import { FrameworkError } from './framework-error.js'
import { HttpKernel } from './http-kernel.js'
import type { ServiceProvider, ServiceProviderClass } from './service-provider.js'
import { CookieJar } from '../http/cookie-jar.js'
import { ExceptionHandler } from '../http/exception-handler.js'
import { resolveRoute } from '../routing/handler-resolver.js'
import { setCurrentRouter } from '../routing/router.js'
import type { Logger } from '../support/logger.js'
import { coreProviders } from './core-providers.js'
import { appModuleUrl, inAppTerms } from './app-modules.js'

export interface BootOptions {
  /** `http` validates everything a server needs (APP_KEY, secrets, routes); `console` is lenient. */
  mode?: 'http' | 'console'
  log?: Logger
}

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs']

function findModule(base: string): string | undefined {
  return SOURCE_EXTENSIONS.map((ext) => base + ext).find((f) => existsSync(f))
}

export async function importAppModule(file: string, what: string): Promise<Record<string, any>> {
  try {
    return await import(appModuleUrl(file))
  } catch (error) {
    if (error instanceof FrameworkError) throw error
    throw new FrameworkError('E_APP_MODULE', `Could not load ${what}: ${inAppTerms((error as Error).message)}`, { cause: error })
  }
}

/** The connection a `DATABASE_URL` names by its scheme, or undefined when it names none. */
export function connectionForUrl(url: string | undefined): 'postgres' | 'mysql' | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url ?? '')?.[1]?.toLowerCase()
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres'
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql'
  return undefined
}

/**
 * Loads `.env` without overriding the process environment. A `DATABASE_URL` set in the process
 * environment without a `DB_CONNECTION` picks its connection by scheme (`postgres://` →
 * `postgres`, `mysql://` or `mariadb://` → `mysql`) before `.env` is read, so the generated
 * `.env`'s `DB_CONNECTION=sqlite` does not win over a deployment's `DATABASE_URL`.
 */
export function loadEnvironment(basePath: string): void {
  if (!process.env.DB_CONNECTION) {
    const inferred = connectionForUrl(process.env.DATABASE_URL)
    if (inferred) process.env.DB_CONNECTION = inferred
  }
  const file = `${basePath}/.env`
  if (existsSync(file)) loadDotenv({ path: file, quiet: true, override: false })
}

export async function createApplication(basePath: string, options: BootOptions = {}): Promise<Application> {
  const mode = options.mode ?? 'http'
  loadEnvironment(basePath)
  const app = new Application(basePath, { log: options.log })
  app.bind('app.mode', mode)

  const appKey = process.env.APP_KEY ?? ''
  const keyBytes = appKey.startsWith('base64:') ? Buffer.from(appKey.slice(7), 'base64').length : Buffer.byteLength(appKey)
  if (keyBytes < 32) {
    if (mode === 'http') {
      throw new FrameworkError('E_APP_KEY', `APP_KEY is ${appKey ? 'shorter than 32 bytes' : 'missing'}: run "node craft key:generate" in ${basePath}.`)
    }
  }
  app.bind('cookies', new CookieJar(keyBytes >= 32 ? appKey : 'console-mode-placeholder-key-0123456789', (process.env.APP_PREVIOUS_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean)))
  app.bind('exceptions', new ExceptionHandler(app))
  app.bind('middleware.instances', new Map())
  app.bind('url.for', (name: string, params?: Record<string, unknown>) => app.router.url(name, params))
  app.bind('url.has', (name: string) => app.router.has(name))

  // 2. config files
  const configDir = app.path('config')
  if (existsSync(configDir)) {
    for (const entry of readdirSync(configDir).sort()) {
      const ext = SOURCE_EXTENSIONS.find((e) => entry.endsWith(e))
      if (!ext || entry.endsWith('.d.ts')) continue
      const name = entry.slice(0, -ext.length)
      app.setConfig(name, await importAppModule(`${configDir}/${entry}`, `config/${entry}`))
    }
  }

  // 3. kernel
  const kernelFile = findModule(app.path('Kernel'))
  let KernelClass: typeof HttpKernel = HttpKernel
  if (kernelFile) {
    const mod = await importAppModule(kernelFile, 'Kernel.ts')
    KernelClass = mod.Kernel ?? mod.default ?? HttpKernel
  }
  app.kernel = new KernelClass(app)

  // 4-6. providers
  const listed: ServiceProviderClass[] = app.config('providers')?.PROVIDERS ?? []
  if (!Array.isArray(listed)) throw new FrameworkError('E_PROVIDERS', 'config/providers.ts must export PROVIDERS as an array.')
  const classes: ServiceProviderClass[] = []
  for (const cls of [...coreProviders(), ...listed]) {
    if (typeof cls !== 'function') throw new FrameworkError('E_PROVIDERS', `config/providers.ts lists something that is not a provider class: ${String(cls)}`)
    if (!classes.includes(cls)) classes.push(cls)
  }
  for (const cls of classes) app.providers.push(new cls(app) as ServiceProvider)
  for (const provider of app.providers) await provider.register()
  app.kernel.registerRoutes()
  for (const provider of app.providers) await provider.boot()

  // 7. web routes
  if (app.has('routes.location')) {
    const location = String(app.make('routes.location'))
    const file = findModule(app.path(location))
    if (file) {
      const mod = await importAppModule(file, `${location}.ts`)
      if (!Array.isArray(mod.ROUTES)) throw new FrameworkError('E_ROUTES', `${location}.ts must export ROUTES as an array.`)
      app.router.mount(mod.ROUTES, { middleware: ['web'] })
    } else if (mode === 'http') {
      throw new FrameworkError('E_ROUTES', `routes.location is "${location}" but ${location}.ts does not exist.`)
    }
  }

  // 8. resolve
  if (!app.kernel.routeMiddleware.web) app.kernel.routeMiddleware.web = []
  for (const route of app.router.routes) route.runtime = await resolveRoute(app, route)
  setCurrentRouter(app.router)
  for (const hook of app.get<(() => unknown)[]>('app.booted.hooks', []) ?? []) await hook()
  return app
}
