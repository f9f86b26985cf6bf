/**
 * @module foundation/application
 * The application: a container plus the app's folder, its loaded config files, the router, the
 * kernel, the providers, a logger, the event emitter and shutdown hooks.
 */
import { join, resolve } from 'node:path'
import { Container } from '../container/container.js'
import { Router } from '../routing/router.js'
import { Logger } from '../support/logger.js'
import { Emitter } from '../events/emitter.js'
import type { ServiceProvider } from './service-provider.js'
import type { HttpKernel } from './http-kernel.js'
import type { ConfigFiles } from './config-files.js'

import { FRAMEWORK_ROOT } from '../support/framework-root.js'

export { FRAMEWORK_ROOT }

export class Application extends Container {
  readonly basePath: string
  readonly router = new Router(this)
  readonly log: Logger
  /** The app's events (`app.events.on('auth:login_succeeded', ...)`). */
  readonly events: Emitter
  readonly providers: ServiceProvider[] = []
  kernel!: HttpKernel
  isDebug: boolean
  #config = new Map<string, unknown>()
  #shutdownHooks: (() => unknown)[] = []
  #shuttingDown?: Promise<void>
  /** Work started by `background()` that has not settled yet. */
  readonly #background = new Set<Promise<void>>()

  constructor(basePath: string, options: { log?: Logger } = {}) {
    super()
    this.basePath = resolve(basePath)
    this.log = options.log ?? new Logger()
    this.events = new Emitter((error, name) => this.log.error('events.listener_failed', { event: name, error }))
    this.isDebug = String(process.env.APP_DEBUG ?? '').toLowerCase() === 'true'
    this.bind('app', this)
    this.bind('router', this.router)
    this.bind('log', this.log)
    this.bind('events', this.events)
  }

  /** A path inside the app's folder. */
  path(...segments: string[]): string {
    return join(this.basePath, ...segments)
  }

  /** A path inside the trowel package. */
  frameworkPath(...segments: string[]): string {
    return join(FRAMEWORK_ROOT, ...segments)
  }

  /**
   * The exports of `config/<name>.ts`, or undefined when the app has no such file: typed for the
   * files declared in `ConfigFiles`, a plain record (or the `T` asked for) for others.
   */
  config<K extends keyof ConfigFiles>(name: K): ConfigFiles[K] | undefined
  config<T = Record<string, unknown>>(name: string): T | undefined
  config(name: string): unknown {
    return this.#config.get(name)
  }

  setConfig(name: string, exports: unknown): void {
    this.#config.set(name, exports)
  }

  hasProvider(name: string): boolean {
    return this.providers.some((p) => p.constructor.name === name || (p.constructor as { providerName?: string }).providerName === name)
  }

  onShutdown(fn: () => unknown): void {
    this.#shutdownHooks.push(fn)
  }

  /**
   * Runs `work` after the current turn (a request's answer goes out first: a reset request's
   * look-up, a notice's mail) and keeps it until it settles, so that `shutdown()` lets it finish
   * before closing the pools and transports it uses. A failure goes to `onError`, never thrown.
   */
  background(work: () => Promise<unknown>, onError: (error: unknown) => void): void {
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .then(
        () => undefined,
        (error: unknown) => {
          try {
            onError(error)
          } catch {
            // Reporting a failure must never become an unhandled rejection.
          }
        },
      )
    this.#background.add(task)
    void task.then(() => this.#background.delete(task))
  }

  /**
   * Runs shutdown hooks (closing pools, stores) once, newest first, after the work `background()`
   * started has settled (and any it started in turn). The serve command's `SHUTDOWN_TIMEOUT`
   * bounds the whole stop.
   */
  shutdown(): Promise<void> {
    this.#shuttingDown ??= (async () => {
      while (this.#background.size > 0) await Promise.allSettled([...this.#background])
      for (const hook of this.#shutdownHooks.reverse()) {
        try {
          await hook()
        } catch (error) {
          this.log.error('app.shutdown_failed', { error })
        }
      }
    })()
    return this.#shuttingDown
  }
}

declare module '../container/bindings.js' {
  interface ContainerBindings {
    app: Application
    router: Router
    log: Logger
    events: Emitter
  }
}

declare module '../http/http-application.js' {
  /** `ctx.app` is the whole Application. */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HttpApplication extends Application {}
}
