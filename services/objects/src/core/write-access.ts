import type { Caller, ObjectRecord } from './types.js'

export type WriteAccess = 'ok' | 'anonymous' | 'denied'

export const ADMINISTRATOR = 'administrator'

/**
 * Decisions §7: a writer belongs to a group with backend_auth (the token says so) or to one of
 * WRITER_GROUPS; an object that lists write groups narrows that to its groups; `administrator` always writes.
 */
export function writeAccess (caller: Caller, writerGroups: readonly string[], record: Pick<ObjectRecord, 'write_groups'> | null): WriteAccess {
  if (caller.user_id === 0) return 'anonymous'
  if (caller.groups.includes(ADMINISTRATOR)) return 'ok'
  if (!caller.may_write && !caller.groups.some((g) => writerGroups.includes(g))) return 'denied'
  if (record !== null && record.write_groups.length > 0 && !caller.groups.some((g) => record.write_groups.includes(g))) return 'denied'
  return 'ok'
}
