import { STATUSES, type Caller, type DraftReach, type ObjectRecord, type Status, type Visibility } from './types.js'
import { ADMINISTRATOR, writeAccess } from './write-access.js'

export interface VisibilitySettings {
  visibleStatuses: Status[]
  windowFilter: boolean
  /** WRITER_GROUPS: who may write besides a token's may_write (decides who sees drafts on status=draft) */
  writerGroups?: readonly string[]
}

export function visibilityFor (settings: VisibilitySettings, caller: Caller, now: number): Visibility {
  const vis: Visibility = { statuses: settings.visibleStatuses, at: settings.windowFilter ? now : null, groups: caller.groups }
  const drafts = caller.sees_drafts === true ? draftReach(caller, settings.writerGroups ?? []) : null
  if (drafts !== null) vis.drafts = drafts
  return vis
}

/**
 * Decisions §16: the drafts a caller asking for them sees, as write-access.ts decides writes: none
 * without write rights, every one for an administrator, else those whose write groups are empty or shared.
 */
export function draftReach (caller: Caller, writerGroups: readonly string[]): DraftReach | null {
  if (writeAccess(caller, writerGroups, null) !== 'ok') return null
  return { everything: caller.groups.includes(ADMINISTRATOR), groups: caller.groups }
}

/**
 * Whether a visibility admits drafts beside its statuses (decisions §16, status=draft by a writer): the
 * kept counts, which know statuses only, then do not serve it.
 */
export const withDrafts = (vis: Visibility): boolean => vis.drafts !== null && vis.drafts !== undefined

/** The status part of a visibility: a visible status, or a draft within the writer's reach. */
export function statusAdmits (record: Pick<ObjectRecord, 'status' | 'write_groups'>, vis: Visibility): boolean {
  if (vis.statuses.includes(record.status)) return true
  const d = vis.drafts
  if (d === null || d === undefined || record.status !== 'draft') return false
  return d.everything || record.write_groups.length === 0 || record.write_groups.some((g) => d.groups.includes(g))
}

/** Parses `on,draft` into statuses; unknown names are reported. */
export function parseStatuses (text: string): { statuses: Status[], unknown: string[] } {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
  const statuses = names.filter((s): s is Status => (STATUSES as string[]).includes(s))
  return { statuses: [...new Set(statuses)], unknown: names.filter((s) => !(STATUSES as string[]).includes(s)) }
}

export function inWindow (record: Pick<ObjectRecord, 'start_date' | 'end_date'>, at: number | null): boolean {
  if (at === null) return true
  if (record.start_date !== null && record.start_date > at) return false
  if (record.end_date !== null && record.end_date < at) return false
  return true
}

export function isProtected (record: Pick<ObjectRecord, 'read_groups'>): boolean {
  return record.read_groups.length > 0
}

/** Decisions §7: members of `administrator` read every object, protected or not (so a write's read check never locks them out). */
export const readsEverything = (groups: readonly string[]): boolean => groups.includes(ADMINISTRATOR)

export function canRead (record: Pick<ObjectRecord, 'read_groups'>, groups: readonly string[]): boolean {
  return !isProtected(record) || readsEverything(groups) || record.read_groups.some((g) => groups.includes(g))
}

/** Published for this caller: a visible status, inside the window, readable. Lists use this. */
export function isVisible (record: ObjectRecord, vis: Visibility): boolean {
  return statusAdmits(record, vis) && inWindow(record, vis.at) && canRead(record, vis.groups)
}

export type ReadAccess = 'ok' | 'hidden' | 'anonymous' | 'denied'

/**
 * Access to one addressed object: an unpublished object does not exist for the caller; a protected
 * one answers 401 to anonymous callers and 403 to callers in none of its read groups.
 */
export function readAccess (record: ObjectRecord, vis: Visibility, caller: Caller): ReadAccess {
  if (!statusAdmits(record, vis) || !inWindow(record, vis.at)) return 'hidden'
  if (canRead(record, caller.groups)) return 'ok'
  return caller.user_id === 0 ? 'anonymous' : 'denied'
}

/** The next instant after `now` at which some object enters or leaves its window. */
export function nextBoundary (startDates: number[], endDates: number[], now: number): number | null {
  let next: number | null = null
  for (const s of startDates) if (s > now && (next === null || s < next)) next = s
  // an object is visible through its end_date and hidden from the millisecond after
  for (const e of endDates) if (e + 1 > now && (next === null || e + 1 < next)) next = e + 1
  return next
}
