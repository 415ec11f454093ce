import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CALLERS, CREATE_REFS, DRAFT_REFS, isProtected, KINDS_OF, marker, markersIn, READS_PROTECTED, sceneRef, seedBola, TRASH_LIST_REFS, USERS,
  type Caller, type Kind, type Role, type WriteOp,
} from './support/bola-fixtures.js'
import { png, upload } from './support/media.js'
import { ADMIN, removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { expectError, login } from './support/writer.js'
import { must } from './support/must.js'

/**
 * Broken object-level authorization, as a matrix: every endpoint that takes an object in its path or body
 * × five callers × a public or a protected object (and, where a write or read touches a second object, a
 * protected related object or child). Each cell asserts the exact status and that no body — success or
 * error — carries a marker of an object the caller may not read (decisions §2, §5, §7, §12; the write rule
 * of docs/security.md "Object permissions in writes"). Every refused write is followed by an
 * administrator's read showing that nothing changed.
 */
describe('BOLA: object-level authorization of every object endpoint', () => {
  let system: RunningSystem
  let refs: Record<string, number>
  const tokens: Partial<Record<Caller | 'auditor', string>> = {}
  /** path (and query) of the originals of the two images with a file */
  const media: Record<string, string> = {}

  beforeAll(async () => {
    system = await startSystem()
    refs = await seedBola(system)
    tokens.administrator = await login(system.base, ADMIN)
    for (const who of ['non-writer', 'writer-without-read', 'writer-with-read', 'auditor'] as const) tokens[who] = await login(system.base, USERS[who])
    for (const ref of ['pubImg', 'secImg']) {
      const uri = (await audit(`/objects/${id(ref)}`)).body.data.object.uri as string
      media[ref] = new URL(uri).pathname
    }
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const id = (ref: string): number => {
    const value = refs[ref]
    if (value === undefined) throw new Error(`no fixture ref ${ref}`)
    return value
  }

  interface Answer extends Reply { text: string }

  /** One request as `who`: a `{data}` body when `data` is given; JSON parsed when the answer is JSON. */
  async function as (who: Caller | 'auditor', method: string, path: string, data?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {}
    const token = tokens[who]
    if (token) headers.authorization = `Bearer ${token}`
    if (data !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(system.base + path, { method, headers, body: data === undefined ? undefined : JSON.stringify({ data }) })
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8')
    const json = res.headers.get('content-type')?.startsWith('application/json') && text !== ''
    return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : undefined, text }
  }

  /** An administrator's read (the auditor, also in the read group): the ground truth after a write. */
  const audit = (path: string) => as('auditor', 'GET', path)

  /** No marker of a protected object in a body the caller cannot read protected objects through. */
  function expectNoLeak (who: Caller, answer: Answer): void {
    if (READS_PROTECTED[who]) return
    expect(markersIn(answer.text), `${who} was shown protected data`).toEqual([])
  }

  function expectAnswer (answer: Answer, expected: Expected): void {
    if (expected.code) expectError(answer, expected.status, expected.code)
    else expect(answer.status, answer.text.slice(0, 500)).toBe(expected.status)
  }

  interface Expected { status: number, code?: string }

  // ---------------------------------------------------------------- reads

  /**
   * How a read cell is gated for callers who may not read protected objects: `open` — 200 for all;
   * `path` — the object in the path is protected (anonymous 401, logged-in 403); `hides` — the path object
   * is public but the second object is protected: for them that relation/child does not exist (404).
   */
  type Gate = 'open' | 'path' | { hides: string }

  interface ReadCell {
    endpoint: string
    kind: string
    gate: Gate
    path: () => string
    /** a list: the refs a caller who reads everything gets; the others get only the public ones */
    list?: string[]
    /** a protected object whose marker a caller who may read it must be shown (the leak check is not vacuous) */
    shows?: string
    check?: (body: Reply['body'], sees: boolean) => void
  }

  const counts = (summary: Record<string, { count: number }>) => Object.fromEntries(Object.entries(summary).map(([k, v]) => [k, v.count]))
  const childCounts = (children: Reply['body']) => ({ count: children.count, sections: children.sections.count, contents: children.contents.count })

  const PUB_SEC_CHILDREN = ['pubSub', 'secSub', 'pubDoc', 'secDoc', 'pubImg', 'secImg', 'posterDoc']
  const SEC_SEC_CHILDREN = ['secSecDoc', 'secSecSub', 'pubInSec']
  const without = (list: string[], ref: string) => list.filter((r) => r !== ref)

  const READS: ReadCell[] = [
    {
      endpoint: 'GET /objects/{id}', kind: 'public document', gate: 'open', path: () => `/objects/${id('pubDoc')}`,
      // relation counts leave out the protected image and the protected seealso
      check: (b, sees) => expect(counts(b.data.object.relations)).toEqual(sees ? { attach: 2, poster: 1, seealso: 1 } : { attach: 1, poster: 1 }),
    },
    {
      endpoint: 'GET /objects/{id}', kind: 'protected document', gate: 'path', path: () => `/objects/${id('secDoc')}`, shows: 'secDoc',
      check: (b) => expect(counts(b.data.object.relations)).toEqual({ attach: 1, poster: 1, seealso: 1 }),
    },
    {
      endpoint: 'GET /objects/{id}', kind: 'public section', gate: 'open', path: () => `/objects/${id('pubSec')}`,
      check: (b, sees) => expect(childCounts(b.data.object.children)).toEqual(sees ? { count: 7, sections: 2, contents: 5 } : { count: 4, sections: 1, contents: 3 }),
    },
    {
      endpoint: 'GET /objects/{id}', kind: 'protected section', gate: 'path', path: () => `/objects/${id('secSec')}`, shows: 'secSec',
      check: (b) => expect(childCounts(b.data.object.children)).toEqual({ count: 3, sections: 1, contents: 2 }),
    },
    { endpoint: 'GET /objects/{id}/children', kind: 'public section', gate: 'open', path: () => `/objects/${id('pubSec')}/children`, list: PUB_SEC_CHILDREN },
    { endpoint: 'GET /objects/{id}/children', kind: 'protected section', gate: 'path', path: () => `/objects/${id('secSec')}/children`, list: SEC_SEC_CHILDREN },
    { endpoint: 'GET /objects/{id}/sections', kind: 'public section', gate: 'open', path: () => `/objects/${id('pubSec')}/sections`, list: ['pubSub', 'secSub'] },
    { endpoint: 'GET /objects/{id}/sections', kind: 'protected section', gate: 'path', path: () => `/objects/${id('secSec')}/sections`, list: ['secSecSub'] },
    { endpoint: 'GET /objects/{id}/contents', kind: 'public section', gate: 'open', path: () => `/objects/${id('pubSec')}/contents`, list: ['pubDoc', 'secDoc', 'pubImg', 'secImg', 'posterDoc'] },
    { endpoint: 'GET /objects/{id}/contents', kind: 'protected section', gate: 'path', path: () => `/objects/${id('secSec')}/contents`, list: ['secSecDoc', 'pubInSec'] },
    { endpoint: 'GET /objects/{id}/descendants', kind: 'public section', gate: 'open', path: () => `/objects/${id('pubSec')}/descendants`, list: [...PUB_SEC_CHILDREN, 'pubSubDoc', 'secSubDoc'] },
    { endpoint: 'GET /objects/{id}/descendants', kind: 'protected section', gate: 'path', path: () => `/objects/${id('secSec')}/descendants`, list: [...SEC_SEC_CHILDREN, 'secSecSubDoc'] },
    { endpoint: 'GET /objects/{id}/siblings', kind: 'public document', gate: 'open', path: () => `/objects/${id('pubDoc')}/siblings`, list: without(PUB_SEC_CHILDREN, 'pubDoc') },
    { endpoint: 'GET /objects/{id}/siblings', kind: 'protected document', gate: 'path', path: () => `/objects/${id('secDoc')}/siblings`, list: without(PUB_SEC_CHILDREN, 'secDoc') },
    {
      endpoint: 'GET /objects/{id}/relations', kind: 'public document', gate: 'open', path: () => `/objects/${id('pubDoc')}/relations`,
      check: (b, sees) => expect(counts(b.data)).toEqual(sees ? { attach: 2, poster: 1, seealso: 1 } : { attach: 1, poster: 1 }),
    },
    {
      endpoint: 'GET /objects/{id}/relations', kind: 'protected document', gate: 'path', path: () => `/objects/${id('secDoc')}/relations`,
      check: (b) => expect(counts(b.data)).toEqual({ attach: 1, poster: 1, seealso: 1 }),
    },
    { endpoint: 'GET /objects/{id}/relations/{name}', kind: 'public document', gate: 'open', path: () => `/objects/${id('pubDoc')}/relations/attach`, list: ['pubImg', 'secImg'] },
    { endpoint: 'GET /objects/{id}/relations/{name}', kind: 'protected document', gate: 'path', path: () => `/objects/${id('secDoc')}/relations/attach`, list: ['pubImg'] },
    { endpoint: 'GET /objects/{id}/relations/{name} (inverse)', kind: 'public image', gate: 'open', path: () => `/objects/${id('pubImg')}/relations/attached_to`, list: ['pubDoc', 'secDoc', 'posterDoc'] },
    { endpoint: 'GET /objects/{id}/relations/{name} (inverse)', kind: 'protected image', gate: 'path', path: () => `/objects/${id('secImg')}/relations/attached_to`, list: ['pubDoc'] },
    {
      endpoint: 'GET /objects/{id}/relations/{name}/{related_id}', kind: 'public document, public related', gate: 'open',
      path: () => `/objects/${id('pubDoc')}/relations/attach/${id('pubImg')}`, check: (b) => expect(b.data).toEqual({ priority: 1, params: null }),
    },
    {
      endpoint: 'GET /objects/{id}/relations/{name}/{related_id}', kind: 'protected document, public related', gate: 'path',
      path: () => `/objects/${id('secDoc')}/relations/attach/${id('pubImg')}`, check: (b) => expect(b.data.priority).toEqual(expect.any(Number)),
    },
    {
      // a relation to an object the caller may not read does not exist for the caller, as in its lists
      endpoint: 'GET /objects/{id}/relations/{name}/{related_id}', kind: 'public document, protected related', gate: { hides: 'RELATION_NOT_FOUND' },
      path: () => `/objects/${id('pubDoc')}/relations/attach/${id('secImg')}`, check: (b) => expect(b.data).toEqual({ priority: 2, params: null }),
    },
    {
      endpoint: 'GET /objects/{id}/children/{child_id}', kind: 'public section, public child', gate: 'open',
      path: () => `/objects/${id('pubSec')}/children/${id('pubDoc')}`, check: (b) => expect(b.data.priority).toEqual(expect.any(Number)),
    },
    {
      endpoint: 'GET /objects/{id}/children/{child_id}', kind: 'protected section, public child', gate: 'path',
      path: () => `/objects/${id('secSec')}/children/${id('pubInSec')}`, check: (b) => expect(b.data.priority).toEqual(expect.any(Number)),
    },
    {
      endpoint: 'GET /objects/{id}/children/{child_id}', kind: 'public section, protected child', gate: { hides: 'CHILD_NOT_FOUND' },
      path: () => `/objects/${id('pubSec')}/children/${id('secDoc')}`, check: (b) => expect(b.data.priority).toEqual(expect.any(Number)),
    },
    {
      endpoint: 'GET /poster/{id}', kind: 'public document', gate: 'open', path: () => `/poster/${id('pubDoc')}`,
      check: (b) => expect(b.data.id).toBe(id('pubImg')),
    },
    {
      endpoint: 'GET /poster/{id}', kind: 'protected document', gate: 'path', path: () => `/poster/${id('secDoc')}`,
      check: (b) => expect(b.data.id).toBe(id('pubImg')),
    },
    {
      // the protected poster image is not there for who may not read it: the next choice (spec 4.9) answers
      endpoint: 'GET /poster/{id}', kind: 'public document, protected poster image', gate: 'open', path: () => `/poster/${id('posterDoc')}`,
      check: (b, sees) => expect(b.data.id).toBe(id(sees ? 'secImg' : 'pubImg')),
    },
    { endpoint: 'GET /media/{id}/{file_name}', kind: 'public image', gate: 'open', path: () => must(media.pubImg) },
    { endpoint: 'GET /media/{id}/{file_name}', kind: 'protected image', gate: 'path', path: () => must(media.secImg) },
  ]

  function readExpected (gate: Gate, who: Caller): Expected {
    if (gate === 'open' || READS_PROTECTED[who]) return { status: 200 }
    if (gate === 'path') return who === 'anonymous' ? { status: 401, code: 'OBJECT_PROTECTED' } : { status: 403, code: 'PERMISSION_DENIED' }
    return { status: 404, code: gate.hides }
  }

  for (const cell of READS) {
    describe(`${cell.endpoint} · ${cell.kind}`, () => {
      for (const who of CALLERS) {
        const expected = readExpected(cell.gate, who)
        it(`${who} → ${expected.status}${expected.code ? ` ${expected.code}` : ''}`, async () => {
          const answer = await as(who, 'GET', cell.path() + (cell.list ? '?page_size=100' : ''))
          expectAnswer(answer, expected)
          expectNoLeak(who, answer)
          if (expected.status !== 200) return
          const sees = READS_PROTECTED[who]
          // who may read protected objects gets their data: the markers are really in the answers
          const shown = new Set(markersIn(answer.text).map((m) => m.toLowerCase()))
          for (const ref of [...(cell.list ?? []), ...(cell.shows ? [cell.shows] : [])].filter(isProtected)) {
            if (sees) expect(shown, `marker of ${ref}`).toContain(marker(ref).toLowerCase())
          }
          if (cell.list) {
            const visible = cell.list.filter((ref) => sees || !isProtected(ref)).map(id)
            const ids = (answer.body.data.objects as { id: number }[]).map((o) => o.id)
            expect([...ids].sort((a, b) => a - b)).toEqual([...visible].sort((a, b) => a - b))
            expect(answer.body.paging.total).toBe(visible.length)
          }
          if (cell.path().startsWith('/media/')) expect(answer.headers.get('content-type')).toBe('image/png')
          cell.check?.(answer.body, sees)
        })
      }
    })
  }

  // ---------------------------------------------------------------- writes

  /** The ids of one write cell's objects, by role. */
  type Scene = (role: Role) => number

  /** Status and body of a read, in a form to compare before and after a write. */
  async function snapshot (path: string): Promise<{ status: number, data: unknown }> {
    const answer = await audit(path)
    return { status: answer.status, data: answer.status === 200 ? answer.body.data : answer.body.error.code }
  }

  const childIds = async (parent: number) => ((await audit(`/objects/${parent}/children?page_size=100`)).body.data.objects as { id: number }[]).map((o) => o.id)

  const relationState = async (s: Scene) => ({
    subject: await snapshot(`/objects/${s('subject')}`),
    related: await snapshot(`/objects/${s('related')}`),
    relation: await snapshot(`/objects/${s('subject')}/relations/attach/${s('related')}`),
  })
  const treeState = async (s: Scene) => ({
    parent: await snapshot(`/objects/${s('parent')}`),
    child: await snapshot(`/objects/${s('child')}`),
    children: await childIds(s('parent')),
    position: await snapshot(`/objects/${s('parent')}/children/${s('child')}`),
  })

  type Request = [method: string, path: string, data?: unknown]

  /** An upload token of `who` (of the auditor for who may not upload: their write is refused before the token is looked at). */
  async function uploadTokenOf (who: Caller, bytes: Buffer): Promise<string> {
    const uploader = who === 'anonymous' || who === 'non-writer' ? 'auditor' : who
    const answer = await upload(system.base, tokens[uploader], 'image', 'replacement.png', bytes, 'image/png')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    return answer.body.data.upload_token as string
  }

  interface WriteCell {
    endpoint: string
    kinds: readonly Kind[]
    /** the ids of the objects this cell writes, for this kind and caller */
    scene: (kind: Kind, who: Caller) => Scene
    /** the request (after what it needs first, such as an upload) */
    send: (s: Scene, who: Caller) => Request | Promise<Request>
    /** the status of a write that goes through */
    ok: number
    /** what the writer who may not read the protected object gets, by kind */
    blind: Partial<Record<Kind, Expected>>
    /** what an administrator reads of everything the write could touch */
    state: (s: Scene) => Promise<unknown>
    /** checks after a write that went through */
    done: (s: Scene, answer: Answer, who: Caller) => Promise<void>
    /** names of the kinds, where the default ones do not fit */
    labels?: Partial<Record<Kind, string>>
    /** what must hold before the state is read (the trash cells' target is trashed first) */
    prepare?: (s: Scene) => Promise<void>
  }

  const sceneOf = (op: WriteOp) => (kind: Kind, who: Caller): Scene => (role) => id(sceneRef(op, kind, who, role))
  const DENIED: Expected = { status: 403, code: 'PERMISSION_DENIED' }
  /** A trashed object the caller may not list is not in the trash for it: the 404 of an id that never was. */
  const NOT_IN_TRASH: Expected = { status: 404, code: 'OBJECT_NOT_FOUND' }
  /** The file an update attaches: of another size than the seeded one, so the change shows. */
  const REPLACEMENT = { width: 31, height: 17, name: 'replacement.png' }
  const INVALID: Expected = { status: 400, code: 'VALIDATION_FAILED' }

  /** Trashes the cell's target as an administrator (the ground truth of the trash cells). */
  const trashFirst = async (s: Scene) => {
    const answer = await as('auditor', 'DELETE', `/objects/${s('target')}`)
    expect(answer.status, `${answer.text}\n${system.output().slice(-4000)}`).toBe(204)
  }
  const trashIds = async () => ((await audit('/trash?page_size=100')).body.data.objects as { id: number }[]).map((o) => o.id)
  const trashState = async (s: Scene) => ({ object: await snapshot(`/objects/${s('target')}`), trashed: (await trashIds()).includes(s('target')) })

  /** Gives the target revisions 1 (rights r1) and 2 (rights r2), as an administrator (fixtures make none). */
  const reviseFirst = async (s: Scene) => {
    for (const rights of ['r1', 'r2']) expect((await as('auditor', 'POST', '/objects', { id: s('target'), rights })).status).toBe(200)
  }

  const createParent = (kind: Kind) => id(kind === 'protected' ? CREATE_REFS.protectedParent : CREATE_REFS.publicParent)

  const WRITES: WriteCell[] = [
    {
      endpoint: 'POST /objects (update, data.id)', kinds: KINDS_OF.update, scene: sceneOf('update'), ok: 200, blind: { protected: DENIED },
      send: (s, who) => ['POST', '/objects', { id: s('target'), title: `Edited by ${who}` }],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (s, answer, who) => {
        expect(answer.body.data.object.title).toBe(`Edited by ${who}`)
        // the answer is the object as this caller reads it (its protected peer is left out of the counts)
        expect(answer.body.data.object).toEqual((await as(who, 'GET', `/objects/${s('target')}`)).body.data.object)
        expect(answer.body.data.object.relations).toEqual(READS_PROTECTED[who] ? { seealso: expect.objectContaining({ count: 1 }) } : {})
        expect((await audit(`/objects/${s('target')}`)).body.data.object.title).toBe(`Edited by ${who}`)
      },
    },
    {
      // attaching an uploaded file to an image is an update: the administrator is never locked out of a protected one
      endpoint: 'POST /objects (update, data.id + upload_token)', kinds: KINDS_OF['replace-file'], scene: sceneOf('replace-file'), ok: 200, blind: { protected: DENIED },
      send: async (s, who) => ['POST', '/objects', { id: s('target'), upload_token: await uploadTokenOf(who, await png(REPLACEMENT.width, REPLACEMENT.height)) }],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (s, answer) => {
        expect(answer.body.data.object).toMatchObject(REPLACEMENT)
        expect((await audit(`/objects/${s('target')}`)).body.data.object).toMatchObject(REPLACEMENT)
      },
    },
    {
      endpoint: 'POST /objects (create under a parent)', kinds: ['public', 'protected'], scene: (kind) => () => createParent(kind), ok: 201,
      labels: { public: 'public parent', protected: 'protected parent' },
      blind: { protected: INVALID }, // a parent the writer may not read cannot take a new object
      send: (s, who) => ['POST', '/objects', { object_type: 'document', title: `Created by ${who}`, parents: [s('parent')] }],
      state: async (s) => ({ parent: await snapshot(`/objects/${s('parent')}`), children: await childIds(s('parent')) }),
      done: async (s, answer) => {
        expect(await childIds(s('parent'))).toContain(answer.body.data.object.id)
      },
    },
    {
      endpoint: 'POST /objects (create related to an image)', kinds: ['public', 'protected-related'],
      labels: { public: 'public related image', 'protected-related': 'protected related image' },
      scene: (kind) => (role) => role === 'related' ? id(kind === 'public' ? CREATE_REFS.publicImage : CREATE_REFS.protectedImage) : createParent('public'), ok: 201,
      blind: { 'protected-related': INVALID }, // a related object the writer may not read does not exist for the write
      send: (s, who) => ['POST', '/objects', { object_type: 'document', title: `Created by ${who}`, parents: [s('parent')], relations: { attach: [{ related_id: s('related') }] } }],
      state: async (s) => ({ children: await childIds(s('parent')), related: await snapshot(`/objects/${s('related')}/relations`) }),
      done: async (s, answer) => {
        const created = answer.body.data.object.id as number
        expect(await childIds(s('parent'))).toContain(created)
        expect((await audit(`/objects/${created}/relations/attach/${s('related')}`)).status).toBe(200)
      },
    },
    {
      endpoint: 'DELETE /objects/{id}', kinds: KINDS_OF.delete, scene: sceneOf('delete'), ok: 204, blind: { protected: DENIED },
      send: (s) => ['DELETE', `/objects/${s('target')}`],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (s) => {
        expectError(await audit(`/objects/${s('target')}`), 404, 'OBJECT_NOT_FOUND')
        expect(await trashIds()).toContain(s('target'))
      },
    },
    {
      endpoint: 'POST /trash/{id}/restore', kinds: KINDS_OF.restore, scene: sceneOf('restore'), ok: 200, blind: { protected: NOT_IN_TRASH },
      prepare: trashFirst,
      send: (s) => ['POST', `/trash/${s('target')}/restore`],
      state: trashState,
      done: async (s, answer) => {
        expect(answer.body.data.object.id).toBe(s('target'))
        // back in its place on the tree
        expect((await audit(`/objects/${id('stage')}/children/${s('target')}`)).status).toBe(200)
        expect(await trashState(s)).toEqual({ object: { status: 200, data: expect.anything() }, trashed: false })
      },
    },
    {
      endpoint: 'GET /objects/{id}/revisions', kinds: KINDS_OF['revision-list'], scene: sceneOf('revision-list'), ok: 200, blind: { protected: DENIED },
      prepare: reviseFirst,
      send: (s) => ['GET', `/objects/${s('target')}/revisions`],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (_s, answer) => {
        expect((answer.body.data.revisions as { revision: number, changed: string[] }[]).map((r) => [r.revision, r.changed])).toEqual([[2, ['rights']], [1, ['rights']]])
        expect(answer.body.paging.total).toBe(2)
      },
    },
    {
      endpoint: 'GET /objects/{id}/revisions/{n}', kinds: KINDS_OF['revision-get'], scene: sceneOf('revision-get'), ok: 200, blind: { protected: DENIED },
      prepare: reviseFirst,
      send: (s) => ['GET', `/objects/${s('target')}/revisions/1`],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (s, answer) => {
        expect(answer.body.data.revision).toMatchObject({ revision: 1, changed: ['rights'], data: { rights: 'r1' } })
        expect(answer.body.data.revision.data.title).toBe((await audit(`/objects/${s('target')}`)).body.data.object.title)
      },
    },
    {
      endpoint: 'POST /objects/{id}/revisions/{n}/restore', kinds: KINDS_OF['revision-restore'], scene: sceneOf('revision-restore'), ok: 200, blind: { protected: DENIED },
      prepare: reviseFirst,
      send: (s) => ['POST', `/objects/${s('target')}/revisions/1/restore`],
      state: async (s) => snapshot(`/objects/${s('target')}`),
      done: async (s, answer) => {
        expect(answer.body.data.object.rights).toBe('r1')
        expect((await audit(`/objects/${s('target')}`)).body.data.object.rights).toBe('r1')
      },
    },
    {
      endpoint: 'DELETE /trash/{id}', kinds: KINDS_OF.purge, scene: sceneOf('purge'), ok: 204, blind: { protected: NOT_IN_TRASH },
      prepare: trashFirst,
      send: (s) => ['DELETE', `/trash/${s('target')}`],
      state: trashState,
      done: async (s) => {
        expect(await trashState(s)).toEqual({ object: { status: 404, data: 'OBJECT_NOT_FOUND' }, trashed: false })
        expectError(await as('auditor', 'POST', `/trash/${s('target')}/restore`), 404, 'OBJECT_NOT_FOUND')
      },
    },
    {
      endpoint: 'POST /objects/{id}/relations/{name}', kinds: KINDS_OF.relate, scene: sceneOf('relate'), ok: 201,
      blind: { protected: DENIED, 'protected-related': INVALID },
      send: (s) => ['POST', `/objects/${s('subject')}/relations/attach`, { related_id: s('related') }],
      state: relationState,
      done: async (s, answer) => {
        expect(answer.body.data).toEqual([{ related_id: s('related'), priority: 1, params: null }])
        expect(await snapshot(`/objects/${s('subject')}/relations/attach/${s('related')}`)).toEqual({ status: 200, data: { priority: 1, params: null } })
      },
    },
    {
      endpoint: 'PUT /objects/{id}/relations/{name}/{related_id}', kinds: KINDS_OF['replace-relation'], scene: sceneOf('replace-relation'), ok: 200,
      blind: { protected: DENIED, 'protected-related': { status: 404, code: 'RELATION_NOT_FOUND' } },
      send: (s) => ['PUT', `/objects/${s('subject')}/relations/attach/${s('related')}`, { priority: 7 }],
      state: relationState,
      done: async (s, answer) => {
        expect(answer.body.data).toEqual({ priority: 7, params: null })
        expect(await snapshot(`/objects/${s('subject')}/relations/attach/${s('related')}`)).toEqual({ status: 200, data: { priority: 7, params: null } })
      },
    },
    {
      endpoint: 'DELETE /objects/{id}/relations/{name}/{related_id}', kinds: KINDS_OF.unrelate, scene: sceneOf('unrelate'), ok: 204,
      blind: { protected: DENIED, 'protected-related': { status: 404, code: 'RELATION_NOT_FOUND' } },
      send: (s) => ['DELETE', `/objects/${s('subject')}/relations/attach/${s('related')}`],
      state: relationState,
      done: async (s) => {
        expect(await snapshot(`/objects/${s('subject')}/relations/attach/${s('related')}`)).toEqual({ status: 404, data: 'RELATION_NOT_FOUND' })
        expect(await snapshot(`/objects/${s('related')}/relations/attached_to/${s('subject')}`)).toEqual({ status: 404, data: 'RELATION_NOT_FOUND' })
      },
    },
    {
      endpoint: 'POST /objects/{id}/children', kinds: KINDS_OF['add-child'], scene: sceneOf('add-child'), ok: 201,
      blind: { protected: DENIED, 'protected-related': INVALID },
      send: (s) => ['POST', `/objects/${s('parent')}/children`, { child_id: s('child') }],
      state: treeState,
      done: async (s, answer) => {
        expect(answer.body.data).toEqual([{ child_id: s('child'), priority: expect.any(Number) }])
        expect(await childIds(s('parent'))).toEqual([s('child')])
      },
    },
    {
      endpoint: 'PUT /objects/{id}/children/{child_id}', kinds: KINDS_OF['move-child'], scene: sceneOf('move-child'), ok: 200,
      blind: { protected: DENIED, 'protected-related': { status: 404, code: 'CHILD_NOT_FOUND' } },
      send: (s) => ['PUT', `/objects/${s('parent')}/children/${s('child')}`, { priority: 9 }],
      state: treeState,
      done: async (s, answer) => {
        expect(answer.body.data).toEqual({ priority: 9 })
        expect(await snapshot(`/objects/${s('parent')}/children/${s('child')}`)).toEqual({ status: 200, data: { priority: 9 } })
      },
    },
    {
      endpoint: 'DELETE /objects/{id}/children/{child_id}', kinds: KINDS_OF['remove-child'], scene: sceneOf('remove-child'), ok: 204,
      blind: { protected: DENIED, 'protected-related': { status: 404, code: 'CHILD_NOT_FOUND' } },
      send: (s) => ['DELETE', `/objects/${s('parent')}/children/${s('child')}`],
      state: treeState,
      done: async (s) => {
        expect(await snapshot(`/objects/${s('parent')}/children/${s('child')}`)).toEqual({ status: 404, data: 'CHILD_NOT_FOUND' })
        expect((await audit(`/objects/${s('child')}`)).status).toBe(200) // the child object stays
      },
    },
  ]

  /** Anonymous 401 and a caller outside the writing groups 403 come before anything about the object. */
  function writeExpected (cell: WriteCell, kind: Kind, who: Caller): Expected {
    if (who === 'anonymous') return { status: 401, code: 'AUTHENTICATION_REQUIRED' }
    if (who === 'non-writer') return DENIED
    if (kind === 'public' || READS_PROTECTED[who]) return { status: cell.ok }
    const blind = cell.blind[kind]
    if (!blind) throw new Error(`${cell.endpoint}: no answer for a blind writer on ${kind}`)
    return blind
  }

  const KIND_LABELS: Record<Kind, string> = { public: 'public objects', protected: 'protected object in path/data.id', 'protected-related': 'protected related object/child' }

  for (const cell of WRITES) {
    for (const kind of cell.kinds) {
      describe(`${cell.endpoint} · ${cell.labels?.[kind] ?? KIND_LABELS[kind]}`, () => {
        for (const who of CALLERS) {
          const expected = writeExpected(cell, kind, who)
          it(`${who} → ${expected.status}${expected.code ? ` ${expected.code}` : ''}`, async () => {
            const s = cell.scene(kind, who)
            await cell.prepare?.(s)
            const before = await cell.state(s)
            const [method, path, data] = await cell.send(s, who)
            const answer = await as(who, method, path, data)
            expectAnswer(answer, expected)
            expectNoLeak(who, answer)
            if (expected.status >= 400) expect(await cell.state(s), 'a refused write changed something').toEqual(before)
            else await cell.done(s, answer, who)
          })
        }
      })
    }
  }

  // ---------------------------------------------------------------- the trash list (decisions §16)

  describe('GET /trash · a public and a protected trashed object', () => {
    beforeAll(async () => {
      for (const ref of Object.values(TRASH_LIST_REFS)) expect((await as('auditor', 'DELETE', `/objects/${id(ref)}`)).status).toBe(204)
    })
    const LIST_EXPECTED: Record<Caller, Expected> = {
      anonymous: { status: 401, code: 'AUTHENTICATION_REQUIRED' }, 'non-writer': DENIED,
      'writer-without-read': { status: 200 }, 'writer-with-read': { status: 200 }, administrator: { status: 200 },
    }
    for (const who of CALLERS) {
      const expected = LIST_EXPECTED[who]
      it(`${who} → ${expected.status}${expected.code ? ` ${expected.code}` : ''}`, async () => {
        const answer = await as(who, 'GET', '/trash?page_size=100')
        expectAnswer(answer, expected)
        expectNoLeak(who, answer)
        if (expected.status !== 200) return
        const ids = (answer.body.data.objects as { id: number }[]).map((o) => o.id)
        expect(ids).toContain(id(TRASH_LIST_REFS.open))
        if (READS_PROTECTED[who]) {
          expect(ids).toContain(id(TRASH_LIST_REFS.closed))
          expect(markersIn(answer.text).map((m) => m.toLowerCase())).toContain(marker(TRASH_LIST_REFS.closed).toLowerCase())
        } else {
          expect(ids).not.toContain(id(TRASH_LIST_REFS.closed))
        }
        expect(answer.body.api).toBe('trash')
        expect(answer.body.paging.total).toBe(ids.length)
      })
    }
  })

  // ---------------------------------------------------------------- drafts and preview URLs (decisions §16)

  /** Writers (and administrators) see drafts on status=draft and may ask for preview URLs; the read groups still hold. */
  const WRITES_ANY: Record<Caller, boolean> = { anonymous: false, 'non-writer': false, 'writer-without-read': true, 'writer-with-read': true, administrator: true }

  for (const [kind, ref] of [['public draft', DRAFT_REFS.open], ['protected draft', DRAFT_REFS.closed]] as const) {
    const closed = ref === DRAFT_REFS.closed
    describe(`GET /objects/{id}?status=draft and the publication's children · ${kind}`, () => {
      for (const who of CALLERS) {
        const expected: Expected = !WRITES_ANY[who] ? { status: 404, code: 'OBJECT_NOT_FOUND' }
          : closed && !READS_PROTECTED[who] ? DENIED : { status: 200 }
        it(`${who} → ${expected.status}${expected.code ? ` ${expected.code}` : ''}`, async () => {
          const answer = await as(who, 'GET', `/objects/${id(ref)}?status=draft`)
          expectAnswer(answer, expected)
          expectNoLeak(who, answer)
          expectError(await as(who, 'GET', `/objects/${id(ref)}`), 404, 'OBJECT_NOT_FOUND')
          const list = await as(who, 'GET', '/objects/publication/children?status=draft&page_size=100')
          expect(list.status).toBe(200)
          expectNoLeak(who, list)
          expect(list.headers.get('cache-control')).toBe('private, no-store')
          const ids = (list.body.data.objects as { id: number }[]).map((o) => o.id)
          expect(ids.includes(id(ref))).toBe(expected.status === 200)
        })
      }
    })

    describe(`POST /objects/{id}/preview, then its URL with no token · ${kind}`, () => {
      for (const who of CALLERS) {
        const expected: Expected = who === 'anonymous' ? { status: 401, code: 'AUTHENTICATION_REQUIRED' }
          : !WRITES_ANY[who] || (closed && !READS_PROTECTED[who]) ? DENIED : { status: 200 }
        it(`${who} → ${expected.status}${expected.code ? ` ${expected.code}` : ''}`, async () => {
          const answer = await as(who, 'POST', `/objects/${id(ref)}/preview`)
          expectAnswer(answer, expected)
          expectNoLeak(who, answer)
          if (expected.status !== 200) return
          const url = new URL(answer.body.data.preview_url as string)
          const read = await fetch(url)
          const text = await read.text()
          expect(read.status, text.slice(0, 500)).toBe(200)
          expect(read.headers.get('cache-control')).toBe('private, no-store')
          expect(JSON.parse(text).data.object.id).toBe(id(ref))
          // the URL reads as its writer would: no more than that writer may read
          expectNoLeak(who, { status: read.status, headers: read.headers, body: undefined, text })
        })
      }
    })
  }
})
