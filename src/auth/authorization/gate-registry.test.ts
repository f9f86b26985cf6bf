import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { GateRegistry, policyMethod } from './gate-registry.js'
import type { OrganizationRecord } from './types.js'

class User {
  constructor(readonly id: number) {}
  getKey(): number {
    return this.id
  }
}
class Post {
  constructor(readonly userId: number) {}
}
class Draft extends Post {}
class Comment {}

const ada = new User(1)
const bob = new User(2)
const acme: OrganizationRecord = { id: 7, name: 'Acme', slug: 'acme' }

describe('GateRegistry', () => {
  describe('define', () => {
    it('allows only when the gate answers true (a truthy non-boolean denies)', async () => {
      const gates = new GateRegistry()
      gates.define('yes', () => true).define('truthy', () => 'yes' as unknown as boolean).define('async', async () => true)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'yes'), true)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'truthy'), false)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'async'), true)
    })

    it('calls the gate with the user, the organisation and the arguments', async () => {
      const gates = new GateRegistry()
      const seen: unknown[][] = []
      gates.define('posts:update', (user: User, organization, post: Post) => {
        seen.push([user, organization, post])
        return post.userId === user.id
      })
      const post = new Post(1)
      assert.equal(await gates.allows({ user: ada, organization: acme }, 'posts:update', [post]), true)
      assert.equal(await gates.allows({ user: bob, organization: null }, 'posts:update', [post]), false)
      assert.deepEqual(seen, [[ada, acme, post], [bob, null, post]])
    })

    it('denies a guest without calling the gate, unless it was defined for guests', async () => {
      const gates = new GateRegistry()
      let calls = 0
      gates.define('members', () => {
        calls++
        return true
      })
      gates.define('public', (user: User | null) => user === null, { guests: true })
      assert.equal(await gates.allows({ user: null, organization: null }, 'members'), false)
      assert.equal(calls, 0)
      assert.equal(await gates.allows({ user: null, organization: null }, 'public'), true)
    })

    it('denies an unknown ability', async () => {
      const gates = new GateRegistry()
      assert.equal(await gates.allows({ user: ada, organization: acme }, 'nothing'), false)
      assert.equal(await gates.allows({ user: ada, organization: acme }, ''), false)
    })

    it('refuses a gate without a name or a function', () => {
      const gates = new GateRegistry()
      assert.throws(() => gates.define('', () => true), /ability name/)
      assert.throws(() => gates.define('x', 'yes' as never), /must be a function/)
    })

    it('lets a later define replace an earlier one', async () => {
      const gates = new GateRegistry()
      gates.define('x', () => true).define('x', () => false)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'x'), false)
    })

    it('lets an exception from a gate through (a bug is not a refusal)', async () => {
      const gates = new GateRegistry()
      gates.define('boom', () => {
        throw new Error('boom')
      })
      await assert.rejects(gates.allows({ user: ada, organization: null }, 'boom'), /boom/)
    })
  })

  describe('policy', () => {
    class PostPolicy {
      constructor(readonly made: unknown) {}
      update(user: User, _organization: OrganizationRecord | null, post: Post): boolean {
        return post.userId === user.id
      }
      forceDelete(): boolean {
        return true
      }
      create(user: User, organization: OrganizationRecord | null): boolean {
        return organization !== null && user.id === 1
      }
    }

    it('picks the policy by the first argument\'s model class and calls the method named after the ability', async () => {
      const gates = new GateRegistry('the-app')
      gates.policy(Post, PostPolicy)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'update', [new Post(1)]), true)
      assert.equal(await gates.allows({ user: bob, organization: null }, 'update', [new Post(1)]), false)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'force-delete', [new Post(2)]), true)
    })

    it('serves subclasses, and a class as the first argument (create)', async () => {
      const gates = new GateRegistry()
      gates.policy(Post, PostPolicy)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'update', [new Draft(1)]), true)
      assert.equal(await gates.allows({ user: ada, organization: acme }, 'create', [Post]), true)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'create', [Post]), false)
    })

    it('falls back to the gate when the policy has no such method, and denies models without a policy', async () => {
      const gates = new GateRegistry()
      gates.policy(Post, PostPolicy)
      gates.define('publish', () => true)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'publish', [new Post(2)]), true)
      assert.equal(await gates.allows({ user: ada, organization: null }, 'update', [new Comment()]), false)
    })

    it('never calls what the policy does not declare (toString, constructor, __proto__)', async () => {
      const gates = new GateRegistry()
      gates.policy(Post, PostPolicy)
      for (const ability of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
        assert.equal(await gates.allows({ user: ada, organization: null }, ability, [new Post(1)]), false, ability)
      }
      assert.equal(policyMethod(new PostPolicy(null), 'toString'), null)
    })

    it('denies a guest without calling the policy', async () => {
      const gates = new GateRegistry()
      let calls = 0
      gates.policy(Post, class {
        view(): boolean {
          calls++
          return true
        }
      })
      assert.equal(await gates.allows({ user: null, organization: null }, 'view', [new Post(1)]), false)
      assert.equal(calls, 0)
    })

    it('lets the policy\'s before() decide first when it answers a boolean', async () => {
      const gates = new GateRegistry()
      gates.policy(Post, class {
        before(user: User): boolean | null {
          return user.id === 1 ? true : null
        }
        update(): boolean {
          return false
        }
      })
      assert.equal(await gates.allows({ user: ada, organization: null }, 'update', [new Post(2)]), true)
      assert.equal(await gates.allows({ user: bob, organization: null }, 'update', [new Post(2)]), false)
    })

    it('builds each policy once, with the registry\'s constructor arguments', async () => {
      const made: unknown[] = []
      const gates = new GateRegistry('app')
      gates.policy(Post, class {
        constructor(app: unknown) {
          made.push(app)
        }
        view(): boolean {
          return true
        }
      })
      await gates.allows({ user: ada, organization: null }, 'view', [new Post(1)])
      await gates.allows({ user: ada, organization: null }, 'view', [new Post(1)])
      assert.deepEqual(made, ['app'])
    })
  })
})
