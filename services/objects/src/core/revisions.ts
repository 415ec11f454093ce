import { OWN_FIELD_NAMES, OWN_FIELDS, type OwnFields } from '@content/api-schema'
import type { ObjectRecord } from './types.js'

/**
 * Revisions (decisions §16): every committed change of an object's own fields stores the fields as they
 * are after it, with who, when and which fields changed, in the write's own transaction. Only the own
 * writable fields: extras, links and permissions are not versioned.
 */
export interface RevisionRecord {
  /** from 1, per object */
  revision: number
  /** ms */
  created: number
  user_id: number
  /** own field names, and `file` when the write attached another file */
  changed: string[]
  data: OwnFields
}

/** What a write's revision holds; the store numbers it and adds when and who. */
export interface RevisionDraft { changed: string[], data: OwnFields }

/** How many revisions a store keeps per object (REVISIONS_KEEP): null = all, 0 = none. */
export type RevisionsKeep = number | null

type Versioned = OwnFields & Pick<ObjectRecord, 'file'>

/**
 * The revision a write makes, from the object before (null: created) and after it; null when the write
 * changed none of the own fields nor the file (an update of extras or links only makes none).
 */
export function revisionDraft (before: Versioned | null, after: Versioned): RevisionDraft | null {
  const data = Object.fromEntries(OWN_FIELD_NAMES.map((f) => [f, after[f]])) as OwnFields
  const changed: string[] = OWN_FIELD_NAMES.filter((f) => after[f] !== (before === null ? OWN_FIELDS[f].default : before[f]))
  if ((before?.file?.key ?? null) !== (after.file?.key ?? null)) changed.push('file')
  if (before !== null && changed.length === 0) return null
  return { changed, data }
}

/** The oldest revision number a store keeps once revision `latest` is written. */
export const oldestKept = (latest: number, keep: RevisionsKeep): number => (keep === null ? 1 : latest - keep + 1)
