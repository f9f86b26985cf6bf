/**
 * @module foundation/bootstrap
 * Builds an application from an app folder, in this order (`bootApplication`; the framework's
 * default providers are given by the composition root, app/create-application.ts):
 * - `loadEnvironment`: `.env` is loaded (the process environment always wins);
 * - `checkAppKey`: serving needs an APP_KEY of at least 32 bytes;
 * - `bindCoreServices`: cookies, the exception handler, middleware instances, `url.for`/`url.has`;
 * - `loadConfigFiles`: every `config/*.ts` is imported (`app.config('auth')` → its exports);
 * - `createKernel`: `Kernel.ts` is instantiated (the base `HttpKernel` when there is none);
 * - `registerProviders`: the given providers, then `PROVIDERS` from `config/providers.ts`;
 * - `kernel.registerRoutes()` binds the route file locations;
 * - `bootProviders`: providers boot (ApiProvider mounts `routes.api.location` here);
 * - `mountWebRoutes`: `routes.location`'s `ROUTES` are mounted in the `web` stack;
 * - `resolveRoutes`: every handler and middleware is resolved, so mistakes stop the app now, not
 *   at request time;
 * - `runBootedHooks`: what providers asked to run once the app is complete.
 * TypeScript files are loaded through tsx, which the CLI registers before calling this.
 */
import { existsSync, readdirSync } from 'node:fs'
import { config as loadDotenv } from 'dotenv'
import { Application } from './application.js'
import { FrameworkError } from './framework-error.js'
import { HttpKernel } from './http-kernel.js'
import type { ServiceProvider, ServiceProviderClass } from './service-provider.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Encrypter } from '../support/encrypter.js'
import { ExceptionHandler } from '../http/exception-handler.js'
import { resolveRoute } from './route-resolver.js'
import { setCurrentRouter } from '../routing/router.js'
import { setCurrentEvents } from '../events/current-events.js'
import type { Logger } from '../support/logger.js'
import { importAppModule } from './app-modules.js'
import { findModule, SOURCE_EXTENSIONS } from './module-finder.js'
import { loadRouteFile } from './route-file.js'

// Kept here so the modules that import it from bootstrap keep working.
export { importAppModule } from './app-modules.js'

export interface BootOptions {
  /** `http` validates everything a server needs (APP_KEY, secrets, routes); `console` is lenient. */
  mode?: 'http' | 'console'
  log?: Logger
  /** Registered before the app's `PROVIDERS` (the composition root gives the framework's own). */
  providers?: readonly ServiceProviderClass[]
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

/** Boots the app in `basePath`: the steps listed at the top of this module, in that order. */
export async function bootApplication(basePath: string, options: BootOptions = {}): Promise<Application> {
  const mode = options.mode ?? 'http'
  loadEnvironment(basePath)
  const app = new Application(basePath, { log: options.log })
  // `import { events } from 'trowel'` speaks for this app's emitter, providers' boot() included.
  setCurrentEvents(app.events)
  app.bind('app.mode', mode)
  const cookieKey = checkAppKey(basePath, mode)
  bindCoreServices(app, cookieKey)
  await loadConfigFiles(app)
  app.kernel = await createKernel(app)
  await registerProviders(app, options.providers ?? [])
  app.kernel.registerRoutes()
  await bootProviders(app)
  await mountWebRoutes(app, mode)
  await resolveRoutes(app)
  await runBootedHooks(app)
  return app
}

/** The key cookies are signed with: APP_KEY, which serving requires to be at least 32 bytes. */
function checkAppKey(basePath: string, mode: 'http' | 'console'): string {
  const appKey = process.env.APP_KEY ?? ''
  const keyBytes = appKey.startsWith('base64:') ? Buffer.from(appKey.slice(7), 'base64').length : Buffer.byteLength(appKey)
  if (keyBytes >= 32) return appKey
  if (mode === 'http') {
    throw new FrameworkError('E_APP_KEY', `APP_KEY is ${appKey ? 'shorter than 32 bytes' : 'missing'}: run "node craft key:generate" in ${basePath}.`)
  }
  // Console mode (e.g. routes:list) runs without a key: cookies get a stand-in.
  return 'console-mode-placeholder-key-0123456789'
}

/** Binds what every request needs before any provider runs: cookies, exceptions, URL helpers. */
function bindCoreServices(app: Application, cookieKey: string): void {
  const previousKeys = (process.env.APP_PREVIOUS_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean)
  app.bind('cookies', new CookieJar(cookieKey, previousKeys))
  app.bind('encrypter', new Encrypter(cookieKey, previousKeys))
  app.bind('exceptions', new ExceptionHandler(app))
  app.bind('middleware.instances', new Map())
  app.bind('url.for', (name: string, params?: Record<string, unknown>) => app.router.url(name, params))
  app.bind('url.has', (name: string) => app.router.has(name))
}

/** Imports every `config/<name>.ts` (in name order) as `app.config('<name>')`. */
async function loadConfigFiles(app: Application): Promise<void> {
  const configDir = app.path('config')
  if (!existsSync(configDir)) return
  for (const entry of readdirSync(configDir).sort()) {
    const ext = SOURCE_EXTENSIONS.find((e) => entry.endsWith(e))
    if (!ext || entry.endsWith('.d.ts')) continue
    const name = entry.slice(0, -ext.length)
    app.setConfig(name, await importAppModule(`${configDir}/${entry}`, `config/${entry}`))
  }
}

/** The app's `Kernel` (named or default export of `Kernel.ts`), or the base kernel when there is none. */
async function createKernel(app: Application): Promise<HttpKernel> {
  const kernelFile = findModule(app.path('Kernel'))
  let KernelClass: typeof HttpKernel = HttpKernel
  if (kernelFile) {
    const mod = await importAppModule(kernelFile, 'Kernel.ts')
    KernelClass = mod.Kernel ?? mod.default ?? HttpKernel
  }
  return new KernelClass(app)
}

/** Instantiates `first`, then `PROVIDERS` (each class once), and runs every `register()`. */
async function registerProviders(app: Application, first: readonly ServiceProviderClass[]): Promise<void> {
  const listed: ServiceProviderClass[] = app.config('providers')?.PROVIDERS ?? []
  if (!Array.isArray(listed)) throw new FrameworkError('E_PROVIDERS', 'config/providers.ts must export PROVIDERS as an array.')
  const classes: ServiceProviderClass[] = []
  for (const cls of [...first, ...listed]) {
    if (typeof cls !== 'function') throw new FrameworkError('E_PROVIDERS', `config/providers.ts lists something that is not a provider class: ${String(cls)}`)
    if (!classes.includes(cls)) classes.push(cls)
  }
  for (const cls of classes) app.providers.push(new cls(app) as ServiceProvider)
  for (const provider of app.providers) await provider.register()
}

/** Runs every provider's `boot()`, in registration order. */
async function bootProviders(app: Application): Promise<void> {
  for (const provider of app.providers) await provider.boot()
}

/** Mounts the web routes in the `web` stack; serving requires the route file to exist. */
async function mountWebRoutes(app: Application, mode: 'http' | 'console'): Promise<void> {
  const routes = await loadRouteFile(app, 'routes.location', { required: mode === 'http' })
  if (routes) app.router.mount(routes, { middleware: ['web'] })
}

/** Resolves every route's handler and middleware now, so a mistake stops the app at startup. */
async function resolveRoutes(app: Application): Promise<void> {
  if (!app.kernel.routeMiddleware.web) app.kernel.routeMiddleware.web = []
  for (const route of app.router.routes) route.runtime = await resolveRoute(app, route)
  setCurrentRouter(app.router)
}

/** Runs the `app.booted.hooks` providers added, once the app is complete. */
async function runBootedHooks(app: Application): Promise<void> {
  for (const hook of app.get<(() => unknown)[]>('app.booted.hooks', []) ?? []) await hook()
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    cookies: CookieJar
    exceptions: ExceptionHandler
    'app.mode': 'http' | 'console'
  }
}
