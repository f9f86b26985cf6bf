/**
 * @module auth/organizations/roles
 * What a role may do: its abilities (`'*'` covers every one), and the no-escalation rule: an actor
 * may assign, invite with, change or remove only a role whose abilities are a subset of their own.
 */

export class Roles {
  constructor(readonly config: Readonly<Record<string, readonly string[]>>) {}

  /** The role names, in config order. */
  names(): string[] {
    return Object.keys(this.config)
  }

  has(role: unknown): role is string {
    return typeof role === 'string' && Object.hasOwn(this.config, role)
  }

  /** The abilities of `role` (none for an unknown role: a role removed from config grants nothing). */
  abilities(role: string): readonly string[] {
    return this.has(role) ? this.config[role]! : []
  }

  /** Whether `role` grants `ability`. */
  allows(role: string, ability: string): boolean {
    const granted = this.abilities(role)
    return granted.includes('*') || granted.includes(ability)
  }

  /** Whether every ability of `target` is one of `actor`'s (no escalation). An unknown target is never within. */
  within(target: string, actor: string): boolean {
    if (!this.has(target)) return false
    const own = this.abilities(actor)
    if (own.includes('*')) return true
    const wanted = this.abilities(target)
    return !wanted.includes('*') && wanted.every((a) => own.includes(a))
  }
}
