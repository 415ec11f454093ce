import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { png } from './media.js'
import { admin } from './seeded.js'
import { removeDir, type RunningSystem } from './system.js'

// The publication of the BOLA matrix (test/bola.test.ts): five callers, a small shared graph of public and
// protected objects for the reads, and one disposable "scene" per write cell so that no write — refused
// or accepted — can change what another cell acts on.
//
// Every protected object carries its own marker (`SECRET-<ref>-END`) in its title and description, and
// so in its generated nickname too (lower-cased): a body that contains one leaks that object. No public
// object's text contains "secret".

/** The one read group of every protected object here. */
export const READ_GROUP = 'readers'

/** The callers of the matrix, in the order each cell tries them. */
export const CALLERS = ['anonymous', 'non-writer', 'writer-without-read', 'writer-with-read', 'administrator'] as const
export type Caller = typeof CALLERS[number]

/**
 * Which callers may read the protected objects: members of the read group, and members of `administrator`,
 * who read and write every object whatever its groups (decisions §7). The administrator here is in no
 * read group, so every cell shows it gaining exactly that and nobody else gaining anything.
 */
export const READS_PROTECTED: Record<Caller, boolean> = {
  anonymous: false, 'non-writer': true, 'writer-without-read': false, 'writer-with-read': true, administrator: true,
}

/** Users of the matrix; the administrator is the system's own (ADMIN). */
export const USERS = {
  'non-writer': { username: 'rita', password: 'rita-reads-only-1', groups: [READ_GROUP], name: 'Rita Reader', email: 'rita@example.org' },
  'writer-without-read': { username: 'wes', password: 'wes-writes-blind-2', groups: ['editor'], name: 'Wes Writer', email: 'wes@example.org' },
  'writer-with-read': { username: 'wren', password: 'wren-reads-writes-3', groups: ['editor', READ_GROUP], name: 'Wren', email: 'wren@example.org' },
  /**
   * Not a caller of the matrix: the administrator whose reads check that a refused write changed
   * nothing. It is also in the read group, so those checks do not depend on the rule under test.
   */
  auditor: { username: 'audrey', password: 'audrey-audits-all-4', groups: ['administrator', READ_GROUP], name: 'Audrey', email: 'audrey@example.org' },
}

export const marker = (ref: string) => `SECRET-${ref}-END`

/** Every marker in a body (case-insensitive: nicknames are lower-cased titles). */
export const markersIn = (text: string): string[] => text.match(/secret-[a-z0-9-]+?-end/gi) ?? []

/** The image file of the media objects, written beside the fixtures file. */
export const IMAGE_FILE = 'pixel.png'

type FixtureObject = Record<string, unknown> & { ref: string }

const protectedRefs = new Set<string>()

function pub (ref: string, objectType: string, parents: string[], extra: Record<string, unknown> = {}): FixtureObject {
  return { ref, object_type: objectType, title: `Public ${ref}`, description: `Open text of ${ref}`, parents, ...extra }
}

function sec (ref: string, objectType: string, parents: string[], extra: Record<string, unknown> = {}): FixtureObject {
  protectedRefs.add(ref)
  return {
    ref, object_type: objectType, title: marker(ref), description: `${marker(ref)} description`, parents,
    permissions: { read: [READ_GROUP] }, ...extra,
  }
}

/** Whether the fixture object `ref` is protected (readable by the read group only). */
export const isProtected = (ref: string) => protectedRefs.has(ref)

/**
 * The shared graph the reads look at (never written):
 *
 *   pubSec ── pubSub ── pubSubDoc          secSec (P) ── secSecDoc (P)
 *          ├─ secSub (P) ── secSubDoc (P)              ├─ secSecSub (P) ── secSecSubDoc (P)
 *          ├─ pubDoc   attach→pubImg,secImg; seealso→secDoc; poster→pubImg
 *          ├─ secDoc (P) attach→pubImg; poster→pubImg    └─ pubInSec (public: permissions are not inherited)
 *          ├─ pubImg, secImg (P)   (both with a file)
 *          └─ posterDoc  poster→secImg; attach→pubImg
 */
function shared (): FixtureObject[] {
  return [
    pub('pubSec', 'section', ['@publication']),
    sec('secSec', 'section', ['@publication']),
    pub('pubSub', 'section', ['pubSec']),
    sec('secSub', 'section', ['pubSec']),
    pub('pubDoc', 'document', ['pubSec'], {
      body: '<p>open body</p>',
      relations: { attach: [{ related: 'pubImg', priority: 1 }, { related: 'secImg', priority: 2 }], seealso: [{ related: 'secDoc' }], poster: [{ related: 'pubImg' }] },
    }),
    sec('secDoc', 'document', ['pubSec'], {
      body: `<p>${marker('secDoc')} body</p>`,
      relations: { attach: [{ related: 'pubImg' }], poster: [{ related: 'pubImg' }] },
    }),
    pub('pubImg', 'image', ['pubSec'], { file: IMAGE_FILE }),
    sec('secImg', 'image', ['pubSec'], { file: IMAGE_FILE }),
    pub('posterDoc', 'document', ['pubSec'], { relations: { poster: [{ related: 'secImg' }], attach: [{ related: 'pubImg' }] } }),
    pub('pubSubDoc', 'document', ['pubSub']),
    sec('secSubDoc', 'document', ['secSub']),
    sec('secSecDoc', 'document', ['secSec'], { body: `<p>${marker('secSecDoc')} body</p>` }),
    sec('secSecSub', 'section', ['secSec']),
    sec('secSecSubDoc', 'document', ['secSecSub']),
    pub('pubInSec', 'document', ['secSec']),
  ]
}

/** The write endpoints; each cell of one acts on its own scene. */
export type WriteOp = 'update' | 'replace-file' | 'delete' | 'relate' | 'replace-relation' | 'unrelate' | 'add-child' | 'move-child' | 'remove-child'
  | 'restore' | 'purge' | 'revision-list' | 'revision-get' | 'revision-restore'

/**
 * What is protected in a write cell: nothing; the object the path (or `data.id`) names; or the other
 * object the write touches — the related object of a relation, the child of a tree write.
 */
export type Kind = 'public' | 'protected' | 'protected-related'

export const KINDS_OF: Record<WriteOp, readonly Kind[]> = {
  update: ['public', 'protected'],
  'replace-file': ['public', 'protected'],
  delete: ['public', 'protected'],
  relate: ['public', 'protected', 'protected-related'],
  'replace-relation': ['public', 'protected', 'protected-related'],
  unrelate: ['public', 'protected', 'protected-related'],
  'add-child': ['public', 'protected', 'protected-related'],
  'move-child': ['public', 'protected', 'protected-related'],
  'remove-child': ['public', 'protected', 'protected-related'],
  // the trash (decisions §16): the target is trashed by an administrator before the cell runs
  restore: ['public', 'protected'],
  purge: ['public', 'protected'],
  // revisions (decisions §16): read and write rights needed; the target gets its revisions before the cell runs
  'revision-list': ['public', 'protected'],
  'revision-get': ['public', 'protected'],
  'revision-restore': ['public', 'protected'],
}

/** The role an object plays in a scene: subject/related for relations, parent/child for the tree. */
export type Role = 'target' | 'peer' | 'subject' | 'related' | 'parent' | 'child'

const CALLER_KEYS: Record<Caller, string> = {
  anonymous: 'anon', 'non-writer': 'nonwriter', 'writer-without-read': 'blind', 'writer-with-read': 'sighted', administrator: 'admin',
}

/** The fixture ref of one object of one write cell's scene (only [a-z0-9-], so nicknames keep the marker whole). */
export const sceneRef = (op: WriteOp, kind: Kind, caller: Caller, role: Role) => `w-${op}-${kind}-${CALLER_KEYS[caller]}-${role}`

/** Parents and a related image of the create cells (shared by the callers: each create adds a new object). */
export const CREATE_REFS = {
  publicParent: 'create-parent-open', protectedParent: 'create-parent-closed', publicImage: 'create-image-open', protectedImage: 'create-image-closed',
} as const

/** A public and a protected draft below the publication: `status=draft` reads and preview URLs (decisions §16). */
export const DRAFT_REFS = { open: 'draft-open', closed: 'draft-closed' } as const

/** A public and a protected object an administrator trashes before the trash list is asked. */
export const TRASH_LIST_REFS = { open: 'trash-list-open', closed: 'trash-list-closed' } as const

function scene (op: WriteOp, kind: Kind, caller: Caller): FixtureObject[] {
  const ref = (role: Role) => sceneRef(op, kind, caller, role)
  const pathObject = kind === 'protected' ? sec : pub
  const otherObject = kind === 'protected-related' ? sec : pub
  switch (op) {
    case 'update':
      // the peer is protected whatever the kind: a writer's answer must not count that relation
      return [
        pathObject(ref('target'), 'document', ['stage'], { relations: { seealso: [{ related: ref('peer') }] } }),
        sec(ref('peer'), 'document', ['stage']),
      ]
    case 'replace-file':
      return [pathObject(ref('target'), 'image', ['stage'], { file: IMAGE_FILE })]
    case 'delete':
    case 'restore':
    case 'purge':
    case 'revision-list':
    case 'revision-get':
    case 'revision-restore':
      return [pathObject(ref('target'), 'document', ['stage'])]
    case 'relate':
      return [pathObject(ref('subject'), 'document', ['stage']), otherObject(ref('related'), 'image', ['stage'])]
    case 'replace-relation':
    case 'unrelate':
      return [
        pathObject(ref('subject'), 'document', ['stage'], { relations: { attach: [{ related: ref('related'), priority: 3, params: { caption: 'as seeded' } }] } }),
        otherObject(ref('related'), 'image', ['stage']),
      ]
    case 'add-child':
      return [pathObject(ref('parent'), 'section', ['stage']), otherObject(ref('child'), 'document', ['stage'])]
    case 'move-child':
    case 'remove-child':
      return [pathObject(ref('parent'), 'section', ['stage']), otherObject(ref('child'), 'document', [ref('parent')])]
  }
}

function build () {
  const scenes = (Object.keys(KINDS_OF) as WriteOp[]).flatMap((op) => KINDS_OF[op].flatMap((kind) => CALLERS.flatMap((caller) => scene(op, kind, caller))))
  const objects = [
    ...shared(),
    pub('stage', 'section', ['@publication']),
    pub(CREATE_REFS.publicParent, 'section', ['@publication']),
    sec(CREATE_REFS.protectedParent, 'section', ['@publication']),
    pub(CREATE_REFS.publicImage, 'image', ['stage']),
    sec(CREATE_REFS.protectedImage, 'image', ['stage']),
    pub(TRASH_LIST_REFS.open, 'document', ['stage']),
    sec(TRASH_LIST_REFS.closed, 'document', ['stage']),
    pub(DRAFT_REFS.open, 'document', ['@publication'], { status: 'draft' }),
    sec(DRAFT_REFS.closed, 'document', ['@publication'], { status: 'draft' }),
    ...scenes,
  ]
  return {
    groups: [{ name: READ_GROUP, backend_auth: false }],
    users: Object.values(USERS),
    objects,
  }
}

const FIXTURES = build()

/** The fixtures file (decisions §11) of the matrix. */
export const bolaFixtures = () => FIXTURES

/** Loads the fixtures (and their image file) with `npm run admin -- seed`; answers every ref's id. */
export async function seedBola (system: RunningSystem): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'content-bola-'))
  try {
    writeFileSync(join(dir, IMAGE_FILE), await png(24, 16))
    const file = join(dir, 'fixtures.json')
    writeFileSync(file, JSON.stringify(bolaFixtures()))
    const run = admin(system, 'seed', file)
    if (run.status !== 0) throw new Error(`seed failed: ${run.stderr}${run.stdout}`)
    return JSON.parse(run.lastLine) as Record<string, number>
  } finally {
    removeDir(dir)
  }
}
