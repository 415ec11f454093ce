import type { ChangeType } from '@content/api-schema'
import type { v1 } from '@content/protos'

/** What decides whether a caller may read an object (decisions §7, §16), as the objects service is configured. */
export interface ReadRules {
  /** VISIBLE_STATUSES: what readers see (default `on`) */
  visibleStatuses: readonly string[]
  /** PUBLICATION_WINDOW_FILTER: objects outside their start/end window are hidden */
  windowFilter: boolean
  /** WRITER_GROUPS: who may write besides a token's may_write (decides whose drafts a `status=draft` stream shows) */
  writerGroups: readonly string[]
}

/** The caller of a stream, and whether it asked for drafts (`status=draft`). */
export interface Viewer {
  userId: number
  groups: readonly string[]
  mayWrite: boolean
  drafts: boolean
}

export type Access = v1.ObjectAccess__Output
/** What decides who may read an object: an event's object's access, or its other end's. */
export type ReadAccess = v1.RowAccess__Output

const ADMINISTRATOR = 'administrator'

const shares = (a: readonly string[], b: readonly string[]): boolean => a.some((g) => b.includes(g))

/** Decisions §16: a draft shows, on a `status=draft` stream, to a caller who may write it (write-access.ts of the objects service). */
function writesDraft (access: ReadAccess, viewer: Viewer, rules: ReadRules): boolean {
  if (!viewer.drafts || viewer.userId === 0) return false
  if (viewer.groups.includes(ADMINISTRATOR)) return true
  if (!viewer.mayWrite && !shares(viewer.groups, rules.writerGroups)) return false
  return access.write_groups.length === 0 || shares(access.write_groups, viewer.groups)
}

/**
 * Whether the viewer may read an object of this access at `now` (the single read's rules): a visible
 * status (or a draft it may write, when it asked), inside the window, and in a read group when the object
 * is protected. An event without access (a purge's, or one recorded before events carried access) is for
 * administrators alone.
 * `window: false` leaves the publication window out.
 */
export function mayRead (access: ReadAccess | null | undefined, viewer: Viewer, rules: ReadRules, now: number, window = true): boolean {
  const admin = viewer.groups.includes(ADMINISTRATOR)
  if (access === null || access === undefined) return admin
  if (!rules.visibleStatuses.includes(access.status) && !(access.status === 'draft' && writesDraft(access, viewer, rules))) return false
  if (window && rules.windowFilter) {
    if (access.start_date !== undefined && access.start_date > now) return false
    if (access.end_date !== undefined && access.end_date < now) return false
  }
  return access.read_groups.length === 0 || admin || shares(access.read_groups, viewer.groups)
}

/** Changes after which the object is gone for every reader: their access is the one just before them. */
const REMOVALS = new Set<string>(['object.trashed', 'object.deleted'])

/**
 * An event's object's access as the next event about it finds it (its `before`): none after a removal, so
 * a later event about the removed object (its purge) takes nothing more away from anyone.
 */
export function accessAfter (event: v1.ChangeEvent__Output): Access | undefined {
  return REMOVALS.has(event.type) ? undefined : event.access ?? undefined
}

/**
 * An event's object's access just before it: as the store recorded it with the event (an update's, a
 * permissions change's), else as `known` has it (the follower's previous event about the object, if any).
 */
export const accessBefore = (event: v1.ChangeEvent__Output, known: ReadAccess | null | undefined): ReadAccess | null | undefined =>
  event.access?.before ?? known

/** What a stream sends of an event: the event, the bare `object.unpublished` of decisions §17, or nothing. */
export type Verdict = 'send' | 'unpublished' | 'skip'

/**
 * Decisions §17: an event goes to a viewer who may read its object now (a removal's access is the one just
 * before it), and the other end of its edge when it has one (a relation's related object, a tree edge's
 * parent), whose id and type it carries; a change that takes away an object the viewer could read
 * (`before`: its access at the last event the stream knows of) sends the bare `object.unpublished`; a
 * window that closes, the same. An event recorded without its other end's access (before it was recorded,
 * or once that row was gone) is decided by its object's.
 */
export function verdict (type: ChangeType, access: Access | null | undefined, before: ReadAccess | null | undefined, viewer: Viewer, rules: ReadRules, now: number): Verdict {
  if (type === 'object.unpublished') return mayRead(access, viewer, rules, now, false) ? 'unpublished' : 'skip'
  if (mayRead(access, viewer, rules, now)) return access?.other == null || mayRead(access.other, viewer, rules, now) ? 'send' : 'skip'
  if (before !== undefined && before !== null && mayRead(before, viewer, rules, now)) return 'unpublished'
  return 'skip'
}
