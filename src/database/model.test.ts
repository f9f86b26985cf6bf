import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase, type TestDatabase } from './testing.js'
import { Model, type ModelClass } from './model.js'
import { ModelNotFoundError, UniqueConstraintError } from './errors.js'

let tdb: TestDatabase
let usersTable: string
let postsTable: string

// Two stacked mixins, written the way auth and api write theirs.
function Authenticates<T extends ModelClass>(Base: T) {
  return class extends Base {
    static authColumn = 'email'
    static extraHidden = ['password']
    static async findForAuth(value: unknown) {
      return this.findBy(this.authColumn, value)
    }
    authIdentifier(): unknown {
      return this.getAttribute(this.modelClassForAuth().authColumn)
    }
    modelClassForAuth(): { authColumn: string } {
      return this.constructor as unknown as { authColumn: string }
    }
  }
}

function AuthenticatesTokens<T extends ModelClass>(Base: T) {
  return class extends Base {
    static tokenColumn = 'api_token'
    static override hiddenFields(): string[] {
      return [...super.hiddenFields(), this.tokenColumn]
    }
    tokenDigest(): unknown {
      return this.getAttribute('api_token')
    }
  }
}

class User extends AuthenticatesTokens(Authenticates(Model)) {
  static table = 'placeholder'
  static fillable = ['name', 'email', 'password', 'settings', 'active', 'score']
  static hidden = ['remember_token']
  static casts = { settings: 'json', active: 'boolean', score: 'number', last_seen_at: 'date' } as const
  declare name: string
  declare email: string
}

class Post extends Model {
  static table = 'placeholder'
  static fillable = ['title', 'user_id']
  static timestamps = false
}

before(async () => {
  tdb = await createTestDatabase()
  usersTable = tdb.table('users')
  postsTable = tdb.table('posts')
  User.table = usersTable
  Post.table = postsTable
  await tdb.knex.schema.createTable(usersTable, (table) => {
    table.increments('id')
    table.string('name').notNullable()
    table.string('email').notNullable().unique()
    table.string('password').nullable()
    table.string('remember_token').nullable()
    table.string('api_token', 64).nullable()
    table.text('settings').nullable()
    table.boolean('active').nullable()
    table.decimal('score', 8, 2).nullable()
    table.dateTime('last_seen_at').nullable()
    table.timestamps()
  })
  await tdb.knex.schema.createTable(postsTable, (table) => {
    table.increments('id')
    table.string('title').notNullable()
    table.integer('user_id').nullable()
  })
})

after(async () => {
  await tdb.cleanup()
})

describe(`Model (${process.env.DB_CONNECTION ?? 'sqlite'})`, () => {
  it('creates, finds, updates, refreshes and deletes a row', async () => {
    const user = await User.create({ name: 'Ada', email: 'ada@example.com', password: 'h1' })
    assert.equal(typeof user.id, 'number')
    assert.ok(user.$exists)
    assert.equal(user.isDirty(), false)

    const found = await User.find(user.id)
    assert.ok(found instanceof User)
    assert.equal(found.email, 'ada@example.com')
    assert.equal(found.getKey(), user.id)

    found.name = 'Ada Lovelace'
    assert.equal(found.isDirty('name'), true)
    await found.save()
    assert.equal(found.isDirty(), false)
    assert.equal((await User.findOrFail(user.id)).name, 'Ada Lovelace')

    await user.refresh()
    assert.equal(user.name, 'Ada Lovelace')

    await user.update({ name: 'Countess' })
    assert.equal((await User.findBy('email', 'ada@example.com'))?.name, 'Countess')

    assert.equal(await user.delete(), true)
    assert.equal(await User.find(user.id), null)
    await assert.rejects(User.findOrFail(user.id), ModelNotFoundError)
  })

  it('saves only dirty attributes and nothing when clean', async () => {
    const user = await User.create({ name: 'Dirty', email: 'dirty@example.com' })
    const other = await User.findOrFail(user.id)
    other.name = 'Changed elsewhere'
    await other.save()
    user.password = 'new-hash' // name is not dirty on `user`, so it must not overwrite the other change
    await user.save()
    const fresh = await User.findOrFail(user.id)
    assert.equal(fresh.name, 'Changed elsewhere')
    assert.equal(fresh.password, 'new-hash')
    const before = fresh.updated_at as Date
    await fresh.save() // clean: no query, no timestamp change
    assert.equal((fresh.updated_at as Date).getTime(), before.getTime())
  })

  it('ignores keys that are not fillable (mass assignment)', async () => {
    const user = await User.create({ name: 'Eve', email: 'eve@example.com', id: 999999, remember_token: 'x', api_token: 'y', is_admin: true })
    assert.notEqual(user.id, 999999)
    const row = await tdb.knex(usersTable).where('id', user.id as number).first()
    assert.equal(row.remember_token, null)
    assert.equal(row.api_token, null)
    await user.update({ api_token: 'z', name: 'Eve 2' })
    const again = await User.findOrFail(user.id)
    assert.equal(again.api_token, null)
    assert.equal(again.name, 'Eve 2')
    // forceFill is the framework's way to set anything.
    again.forceFill({ remember_token: 'r' })
    await again.save()
    assert.equal((await User.findOrFail(user.id)).remember_token, 'r')
    assert.equal(new User({ email: 'a@b.c', remember_token: 'no' }).remember_token, undefined)
  })

  it('never serialises hidden fields, including those added by mixins', async () => {
    const user = await User.create({ name: 'Hid', email: 'hid@example.com', password: 'secret-hash' })
    user.forceFill({ remember_token: 'rt', api_token: 'digest' })
    await user.save()
    const loaded = await User.findOrFail(user.id)
    for (const json of [loaded.serialize(), JSON.parse(JSON.stringify(loaded)) as Record<string, unknown>, JSON.parse(JSON.stringify([loaded]))[0]]) {
      assert.equal('password' in json, false)
      assert.equal('remember_token' in json, false)
      assert.equal('api_token' in json, false)
      assert.equal(json.email, 'hid@example.com')
    }
    assert.deepEqual([...User.hiddenFields()].sort(), ['api_token', 'password', 'remember_token'])
    assert.equal(loaded.password, 'secret-hash') // still readable in code
  })

  it('a new hidden list assigned at run time applies to the next serialisation', async () => {
    class Note extends Model {
      static hidden = ['secret']
    }
    const note = Note.hydrate({ id: 1, secret: 's', body: 'b' })
    assert.deepEqual(Object.keys(note.serialize()).sort(), ['body', 'id'])
    Note.hidden = ['body']
    assert.deepEqual(Object.keys(note.serialize()).sort(), ['id', 'secret'])
    assert.equal(note.$exists, true)
    assert.deepEqual(note.$original, { id: 1, secret: 's', body: 'b' })
    assert.equal(note.isDirty(), false)
    note.body = 'c'
    assert.equal(note.isDirty(), true)
  })

  it("an ancestor's extraHidden assigned anew applies to subclasses that declare their own; the list is frozen", () => {
    class Base extends Model {
      static extraHidden = ['a']
    }
    class Child extends Base {
      static extraHidden = ['b']
    }
    const row = { id: 1, a: 1, b: 2, c: 3 }
    assert.deepEqual(Object.keys(Child.hydrate(row).serialize()).sort(), ['c', 'id'])
    Base.extraHidden = ['c']
    assert.deepEqual(Object.keys(Child.hydrate(row).serialize()).sort(), ['a', 'id'])
    assert.ok(Object.isFrozen(Child.hiddenFields()))
    assert.throws(() => (Child.hiddenFields() as string[]).push('id'))
  })

  it("a loaded row wins over what a subclass constructor sets", () => {
    class Post extends Model {
      constructor(attributes: Record<string, unknown> = {}) {
        super(attributes)
        ;(this as unknown as { status: string }).status = 'draft'
      }
    }
    const post = Post.hydrate({ id: 1, status: 'published' }) as unknown as Post & { status: string }
    assert.equal(post.status, 'published')
    assert.equal(post.isDirty(), false)
    assert.equal((new Post() as unknown as { status: string }).status, 'draft')
  })

  it('applies casts when reading, assigning and serialising', async () => {
    const seen = new Date('2024-03-01T10:20:30.000Z')
    const user = await User.create({ name: 'Cast', email: 'cast@example.com', settings: { theme: 'dark', n: [1, 2] }, active: true, score: 12.5 })
    user.forceFill({ last_seen_at: seen })
    await user.save()
    const loaded = await User.findOrFail(user.id)
    assert.deepEqual(loaded.settings, { theme: 'dark', n: [1, 2] })
    assert.equal(loaded.active, true)
    assert.equal(loaded.score, 12.5)
    assert.ok(loaded.last_seen_at instanceof Date)
    assert.equal((loaded.last_seen_at as Date).toISOString(), seen.toISOString())
    const json = loaded.serialize()
    assert.equal(json.last_seen_at, '2024-03-01T10:20:30.000Z')
    assert.deepEqual(json.settings, { theme: 'dark', n: [1, 2] })
    loaded.active = 0
    assert.equal(loaded.active, false)
    await loaded.save()
    assert.equal((await User.findOrFail(user.id)).active, false)
    loaded.settings = { theme: 'light' }
    assert.equal(loaded.isDirty('settings'), true)
    await loaded.save()
    assert.deepEqual((await User.findOrFail(user.id)).settings, { theme: 'light' })
  })

  it('hydrates from a copy of the row: only cast columns change, in their order, and the row stays as it was', () => {
    const row = { id: 7, settings: '{"a":1}', active: 1, name: 'Row', last_seen_at: '2024-03-01 10:20:30', score: '2.5', extra: null }
    const before = structuredClone(row)
    const user = User.hydrate(row)
    assert.deepEqual(row, before)
    const attributes = user.getAttributes()
    assert.deepEqual(Object.keys(attributes), Object.keys(row))
    assert.deepEqual(attributes.settings, { a: 1 })
    assert.equal(attributes.active, true)
    assert.equal(attributes.score, 2.5)
    assert.equal((attributes.last_seen_at as Date).toISOString(), '2024-03-01T10:20:30.000Z')
    assert.equal(attributes.name, 'Row')
    assert.equal(attributes.extra, null)
    // A cast declared for a column the row does not have adds nothing.
    assert.equal(Object.hasOwn(User.hydrate({ id: 8 }).getAttributes(), 'settings'), false)
    assert.equal(user.isDirty(), false)
  })

  it('sets created_at and updated_at, and serialises them as ISO strings', async () => {
    const start = Math.floor(Date.now() / 1000) * 1000
    const user = await User.create({ name: 'Time', email: 'time@example.com' })
    assert.ok(user.created_at instanceof Date)
    const loaded = await User.findOrFail(user.id)
    assert.ok(loaded.created_at instanceof Date)
    assert.ok((loaded.created_at as Date).getTime() >= start)
    assert.equal((loaded.created_at as Date).getTime(), (user.created_at as Date).getTime())
    assert.match(String(loaded.serialize().created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/)
    // A model without timestamps writes none.
    const post = await Post.create({ title: 'No stamps' })
    assert.equal(post.created_at, undefined)
  })

  it('composes two stacked mixins: statics, static inheritance and instance methods', async () => {
    assert.equal(User.authColumn, 'email')
    assert.equal(User.tokenColumn, 'api_token')
    assert.equal(User.getTable(), usersTable)
    await User.create({ name: 'Mix', email: 'mix@example.com' })
    const user = await User.findForAuth('mix@example.com')
    assert.ok(user instanceof User)
    assert.equal(user.authIdentifier(), 'mix@example.com')
    assert.equal(user.tokenDigest(), null)
    // A model without the mixins keeps the defaults.
    assert.deepEqual(Post.hiddenFields(), [])
  })

  it('never matches NULL rows for undefined or null lookups', async () => {
    const user = await User.create({ name: 'Nully', email: 'nully@example.com' }) // password, api_token are NULL
    assert.equal(await User.findBy('password', undefined), null)
    assert.equal(await User.findBy('password', null), null)
    assert.equal(await User.findBy('api_token', null), null)
    assert.equal(await User.find(undefined), null)
    assert.equal(await User.find(null), null)
    assert.equal(await User.where('api_token', undefined).first(), null)
    assert.equal(await User.where('api_token', null).first(), null)
    assert.equal(await User.where('api_token', '=', null).first(), null)
    assert.deepEqual(await User.where('api_token', null).get(), [])
    assert.equal(await User.where('api_token', null).count(), 0)
    assert.equal(await User.where('api_token', null).update({ name: 'hacked' }), 0)
    assert.equal(await User.where('api_token', undefined).delete(), 0)
    // the builder itself is narrowed too
    assert.deepEqual(await User.where('api_token', null).toKnex(), [])
    // objects and arrays match nothing either
    assert.equal(await User.findBy('email', { email: 'nully@example.com' }), null)
    assert.equal(await User.findBy('email', ['nully@example.com']), null)
    // explicit NULL lookups stay possible
    assert.ok((await User.where('email', 'nully@example.com').whereNull('api_token').first())?.getKey() === user.getKey())
  })

  it('does not coerce a number into matching string columns', async () => {
    await User.create({ name: 'Zero', email: 'zero@example.com' })
    assert.equal(await User.findBy('email', 0), null)
    assert.equal(await User.where('email', 0).first(), null)
    assert.equal(await User.find('not-a-number'), null)
    assert.equal(await User.find('99999999999999999999'), null)
  })

  it("does not coerce a string into matching a numeric key (MySQL's '1abc' = 1)", async () => {
    const user = await User.create({ name: 'Keyed', email: 'keyed@example.com' })
    const id = String(user.getKey())
    // (Other spellings of the same number, such as ' 10' or '10.0', may match: it is the same key.)
    for (const spelling of [`${id}abc`, `${id}-slug`, `${id}' OR '1'='1`, `${id} OR 1=1`]) {
      assert.equal(await User.find(spelling), null, spelling)
      assert.equal(await User.where('id', spelling).first(), null, spelling)
    }
    assert.equal((await User.find(id))?.getKey(), user.getKey())
    assert.equal((await User.where('id', id).first())?.getKey(), user.getKey())
    assert.equal((await User.where('email', 'keyed@example.com').first())?.getKey(), user.getKey())
  })

  it('queries with where/orderBy/limit/count/update/delete', async () => {
    const a = await User.create({ name: 'Q1', email: 'q1@example.com', score: 1 })
    await Post.create({ title: 'b', user_id: a.id })
    await Post.create({ title: 'a', user_id: a.id })
    await Post.create({ title: 'c', user_id: a.id })
    const titles = (await Post.where('user_id', a.id).orderBy('title', 'desc').limit(2).get()).map((post) => post.title)
    assert.deepEqual(titles, ['c', 'b'])
    assert.equal(await Post.where('user_id', a.id).count(), 3)
    assert.equal(await Post.where('user_id', a.id).where('title', '!=', 'a').count(), 2)
    assert.equal(await Post.where('user_id', a.id).where('title', 'a').update({ title: 'A' }), 1)
    assert.equal((await Post.where('title', 'A').first())?.user_id, a.id)
    assert.equal(await Post.where('user_id', a.id).delete(), 3)
    assert.equal(await Post.where('user_id', a.id).count(), 0)
    const all = await User.all()
    assert.ok(all.length >= 1 && all.every((user) => user instanceof User))
    assert.equal(typeof User.query().toQuery(), 'string')
  })

  it('lets one of two concurrent creates win a unique index; the other gets UniqueConstraintError', async () => {
    const results = await Promise.allSettled([
      User.create({ name: 'Race 1', email: 'race@example.com' }),
      User.create({ name: 'Race 2', email: 'race@example.com' }),
    ])
    const won = results.filter((result) => result.status === 'fulfilled')
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected')
    assert.equal(won.length, 1)
    assert.equal(lost.length, 1)
    assert.ok(lost[0]?.reason instanceof UniqueConstraintError, String(lost[0]?.reason))
    assert.equal(lost[0].reason.status, 409)
    assert.equal(lost[0].reason.code, 'E_CONFLICT')
    assert.equal(lost[0].reason.column, 'email')
    assert.doesNotMatch(lost[0].reason.message, /race@example/)
    assert.equal(await User.where('email', 'race@example.com').count(), 1)
  })

  it('saves inside a transaction and rolls back with it', async () => {
    await assert.rejects(
      tdb.knex.transaction(async (trx) => {
        await User.create({ name: 'Trx', email: 'trx@example.com' }, { client: trx })
        assert.ok(await User.findBy('email', 'trx@example.com', { client: trx }))
        throw new Error('abort')
      }),
      /abort/,
    )
    assert.equal(await User.findBy('email', 'trx@example.com'), null)
  })

  it('exposes attributes as properties, keys and through `in`', async () => {
    const user = new User({ name: 'Props', email: 'props@example.com' })
    assert.equal('email' in user, true)
    assert.equal('nope' in user, false)
    assert.deepEqual(Object.keys(user).sort(), ['email', 'name'])
    assert.deepEqual({ ...user }, { name: 'Props', email: 'props@example.com' })
    user.email = 'changed@example.com'
    assert.equal(user.getAttribute('email'), 'changed@example.com')
    assert.equal(typeof user.save, 'function')
    assert.equal(User.getTable(), usersTable)
    class BlogCategory extends Model {}
    assert.equal(BlogCategory.getTable(), 'blog_categories')
  })

  it('keeps its own state out of enumeration, and a hydrated row wins over the constructor', () => {
    class Account extends Model {
      static fillable = ['role']
      constructor(attributes = {}) {
        super(attributes)
        this.role = 'member'
      }
    }
    const account = Account.hydrate({ id: 4, role: 'owner' })
    assert.equal(account.role, 'owner')
    assert.equal(account.$exists, true)
    assert.deepEqual(account.getDirty(), {})
    assert.deepEqual(Object.keys(account).sort(), ['id', 'role'])
    assert.deepEqual({ ...account }, { id: 4, role: 'owner' })
    assert.deepEqual(Object.entries(account).map(([k]) => k).sort(), ['id', 'role'])
    assert.equal(Object.getOwnPropertyDescriptor(account, '$attributes')?.enumerable, false)
    assert.equal(Object.getOwnPropertyDescriptor(account, '$exists')?.enumerable, false)
    const fresh = new Account()
    assert.equal(fresh.$exists, false)
    assert.deepEqual(Object.keys(fresh), ['role'])
  })
})
