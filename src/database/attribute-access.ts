/**
 * @module database/attribute-access
 * `ATTRIBUTE_ACCESS`: the Proxy handler that makes a model's columns read and write as properties
 * (`user.email`, `user.email = 'x'`, `'email' in user`, `Object.keys(user)`). Members of the class
 * (methods, `$attributes`, declared fields) win over columns of the same name. The model's own
 * state (`$attributes`, `$original`, `$exists`) is stored as plain properties of the instance and
 * hidden here from enumeration, as if it were non-enumerable.
 */
import type { Model } from './model.js'

/** The model's own state: data properties of the instance that enumeration leaves out. */
function isState(property: string | symbol): boolean {
  return property === '$attributes' || property === '$original' || property === '$exists'
}

export const ATTRIBUTE_ACCESS: ProxyHandler<Model> = {
  get(target, property, receiver) {
    if (isState(property)) return (target as unknown as Record<string, unknown>)[property as string]
    if (typeof property === 'symbol' || property in target) return Reflect.get(target, property, receiver)
    return target.$attributes[property]
  },
  set(target, property, value, receiver) {
    if (isState(property)) {
      ;(target as unknown as Record<string, unknown>)[property as string] = value
      return true
    }
    if (typeof property === 'symbol' || property in target) return Reflect.set(target, property, value, receiver)
    target.setAttribute(property, value)
    return true
  },
  has(target, property) {
    return property in target || (typeof property === 'string' && Object.hasOwn(target.$attributes, property))
  },
  deleteProperty(target, property) {
    if (typeof property === 'string' && Object.hasOwn(target.$attributes, property)) {
      delete target.$attributes[property]
      return true
    }
    return Reflect.deleteProperty(target, property)
  },
  ownKeys(target) {
    return [...new Set([...Reflect.ownKeys(target).filter((key) => !isState(key)), ...Object.keys(target.$attributes)])]
  },
  getOwnPropertyDescriptor(target, property) {
    const own = Reflect.getOwnPropertyDescriptor(target, property)
    if (own && isState(property)) return { ...own, enumerable: false }
    if (own || typeof property !== 'string' || !Object.hasOwn(target.$attributes, property)) return own
    return { value: target.$attributes[property], writable: true, enumerable: true, configurable: true }
  },
}
