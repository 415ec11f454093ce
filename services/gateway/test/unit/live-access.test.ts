import { describe, expect, it } from 'vitest'
import { mayRead, verdict, type Access, type ReadRules, type Viewer } from '../../src/live/live-access.js'

const RULES: ReadRules = { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['administrator', 'editor'] }
const NOW = 1_000_000

const access = (over: Partial<Access> = {}): Access => ({ status: 'on', read_groups: [], write_groups: [], parents: [], ancestors: [], ...over })
const viewer = (over: Partial<Viewer> = {}): Viewer => ({ userId: 0, groups: [], mayWrite: false, drafts: false, ...over })

const anonymous = viewer()
const alpha = viewer({ userId: 2, groups: ['alpha'] })
const beta = viewer({ userId: 3, groups: ['beta'] })
const writer = viewer({ userId: 4, groups: ['editor'], mayWrite: true })
const writerDrafts = viewer({ userId: 4, groups: ['editor'], mayWrite: true, drafts: true })
const admin = viewer({ userId: 1, groups: ['administrator'], mayWrite: true })
const adminDrafts = viewer({ userId: 1, groups: ['administrator'], mayWrite: true, drafts: true })

describe('mayRead (decisions §7, §16 as the live streams apply them)', () => {
  const cases: [string, Access | null, Viewer, boolean][] = [
    ['public: anonymous', access(), anonymous, true],
    ['protected: anonymous', access({ read_groups: ['alpha'] }), anonymous, false],
    ['protected: a member of its group', access({ read_groups: ['alpha'] }), alpha, true],
    ['protected: a member of another group', access({ read_groups: ['alpha'] }), beta, false],
    ['protected: an administrator', access({ read_groups: ['alpha'] }), admin, true],
    ['off: an administrator', access({ status: 'off' }), admin, false],
    ['draft: an administrator without status=draft', access({ status: 'draft' }), admin, false],
    ['draft: an administrator with status=draft', access({ status: 'draft' }), adminDrafts, true],
    ['draft: a writer with status=draft', access({ status: 'draft' }), writerDrafts, true],
    ['draft: a writer without status=draft', access({ status: 'draft' }), writer, false],
    ['draft narrowed to other writers: a writer with status=draft', access({ status: 'draft', write_groups: ['desk'] }), writerDrafts, false],
    ['draft: a reader asking for drafts', access({ status: 'draft' }), viewer({ userId: 2, groups: ['alpha'], drafts: true }), false],
    ['draft: anonymous asking for drafts', access({ status: 'draft' }), viewer({ drafts: true }), false],
    ['protected draft: a writer outside its read group', access({ status: 'draft', read_groups: ['alpha'] }), writerDrafts, false],
    ['before its window', access({ start_date: NOW + 1 }), anonymous, false],
    ['after its window', access({ end_date: NOW - 1 }), anonymous, false],
    ['inside its window', access({ start_date: NOW - 1, end_date: NOW + 1 }), anonymous, true],
    ['no access recorded: anonymous', null, anonymous, false],
    ['no access recorded: a member', null, alpha, false],
    ['no access recorded: an administrator', null, admin, true],
  ]
  it.each(cases)('%s', (_name, a, v, expected) => {
    expect(mayRead(a, v, RULES, NOW)).toBe(expected)
  })

  it('with the window filter off, the window hides nothing', () => {
    expect(mayRead(access({ end_date: NOW - 1 }), anonymous, { ...RULES, windowFilter: false }, NOW)).toBe(true)
  })

  it('VISIBLE_STATUSES decides what readers see', () => {
    expect(mayRead(access({ status: 'off' }), anonymous, { ...RULES, visibleStatuses: ['on', 'off'] }, NOW)).toBe(true)
  })
})

describe('verdict', () => {
  const pub = access()
  const prot = access({ read_groups: ['alpha'] })

  it('sends an event of an object the viewer may read', () => {
    expect(verdict('object.updated', pub, pub, anonymous, RULES, NOW)).toBe('send')
  })

  it('a change that takes the object away from a viewer who could read it is a bare object.unpublished', () => {
    expect(verdict('permissions.changed', prot, pub, anonymous, RULES, NOW)).toBe('unpublished')
    expect(verdict('permissions.changed', prot, pub, alpha, RULES, NOW)).toBe('send')
    expect(verdict('object.updated', access({ status: 'off' }), pub, alpha, RULES, NOW)).toBe('unpublished')
  })

  it('nothing of an object the viewer could not read before nor now', () => {
    expect(verdict('object.updated', prot, prot, beta, RULES, NOW)).toBe('skip')
    expect(verdict('object.created', prot, undefined, anonymous, RULES, NOW)).toBe('skip')
  })

  it('a trashed object is told by the access it had just before', () => {
    expect(verdict('object.trashed', prot, prot, alpha, RULES, NOW)).toBe('send')
    expect(verdict('object.trashed', prot, prot, beta, RULES, NOW)).toBe('skip')
  })

  it('an edge to an object the viewer may not read is not sent: its event carries that object\'s id and type', () => {
    const toDraft = access({ other: { status: 'draft', read_groups: [], write_groups: [] } })
    const toProtected = access({ other: { status: 'on', read_groups: ['alpha'], write_groups: [] } })
    const toClosed = access({ other: { status: 'on', read_groups: [], write_groups: [], end_date: NOW - 1 } })
    expect(verdict('relation.created', toDraft, pub, anonymous, RULES, NOW)).toBe('skip')
    expect(verdict('relation.created', toDraft, pub, writerDrafts, RULES, NOW)).toBe('send')
    expect(verdict('child.added', toProtected, pub, beta, RULES, NOW)).toBe('skip')
    expect(verdict('child.added', toProtected, pub, alpha, RULES, NOW)).toBe('send')
    expect(verdict('relation.deleted', toClosed, pub, anonymous, RULES, NOW)).toBe('skip')
    expect(verdict('relation.updated', access({ other: { status: 'on', read_groups: [], write_groups: [] } }), pub, anonymous, RULES, NOW)).toBe('send')
    // the object itself taken away still says so, whatever its other end
    expect(verdict('child.added', { ...toDraft, read_groups: ['alpha'] }, pub, anonymous, RULES, NOW)).toBe('unpublished')
  })

  it('a window that closes is a bare object.unpublished to those who could read the object', () => {
    const closed = access({ end_date: NOW - 1 })
    expect(verdict('object.unpublished', closed, undefined, anonymous, RULES, NOW)).toBe('unpublished')
    expect(verdict('object.unpublished', access({ end_date: NOW - 1, read_groups: ['alpha'] }), undefined, beta, RULES, NOW)).toBe('skip')
  })
})
