/**
 * @module container/container
 * A small service container: `bind` stores a value, `singleton` a lazily built shared value,
 * `factory` a builder called on every `make`.
 */
import { FrameworkError } from '../support/framework-error.js'
import type { ContainerBindings } from './bindings.js'

type Factory<T = unknown> = (container: Container) => T

interface Binding {
  kind: 'value' | 'singleton' | 'factory'
  value?: unknown
  factory?: Factory
  resolved?: boolean
}

export class Container {
  #bindings = new Map<string, Binding>()

  /** Binds `key` to `value` as is (a string, an object, a class...). */
  bind(key: string, value: unknown): this {
    this.#bindings.set(key, { kind: 'value', value })
    return this
  }

  /** Binds `key` to a value built once, on first `make`. */
  singleton<T>(key: string, factory: Factory<T>): this {
    this.#bindings.set(key, { kind: 'singleton', factory })
    return this
  }

  /** Binds `key` to a builder called on every `make`. */
  factory<T>(key: string, factory: Factory<T>): this {
    this.#bindings.set(key, { kind: 'factory', factory })
    return this
  }

  has(key: string): boolean {
    return this.#bindings.has(key)
  }

  /** The value bound to `key`; typed by ContainerBindings for the framework's own keys. */
  make<K extends keyof ContainerBindings>(key: K): ContainerBindings[K]
  make<T = any>(key: string): T
  make<T = any>(key: string): T {
    const binding = this.#bindings.get(key)
    if (!binding) {
      throw new FrameworkError('E_BINDING_NOT_FOUND', `Nothing is bound to "${key}" in the container.`)
    }
    if (binding.kind === 'value') return binding.value as T
    if (binding.kind === 'factory') return binding.factory!(this) as T
    if (!binding.resolved) {
      binding.value = binding.factory!(this)
      binding.resolved = true
    }
    return binding.value as T
  }

  /** `make(key)` or `fallback` when nothing is bound. */
  get<K extends keyof ContainerBindings>(key: K, fallback?: ContainerBindings[K]): ContainerBindings[K] | undefined
  get<T = any>(key: string, fallback?: T): T | undefined
  get<T = any>(key: string, fallback?: T): T | undefined {
    return this.has(key) ? this.make<T>(key) : fallback
  }
}
