import { OWN_FIELD_NAMES, OWN_FIELDS } from '@content/api-schema'
import type { ObjectTypeName } from '../../core/object-types.js'
import { storedFileJson } from '../../core/media-file.js'
import type { ObjectRecord, Status } from '../../core/types.js'

/** The `objects` columns of a record, read as arrays (rows as keyed objects cost more, and every read loads records). */
const RECORD_COLUMNS = [
  'id', 'object_type', 'nickname', 'status', ...OWN_FIELD_NAMES,
  'created', 'modified', 'user_created', 'user_modified', 'read_groups', 'write_groups', 'file',
] as const

const OWN = OWN_FIELD_NAMES.map((f) => [f, RECORD_COLUMNS.indexOf(f), OWN_FIELDS[f].kind === 'flag'] as const)
const at = Object.fromEntries(RECORD_COLUMNS.map((c, i) => [c, i])) as Record<typeof RECORD_COLUMNS[number], number>

/** The select list matching `toRecord`: `SELECT ${RECORD_SELECT} FROM objects o …` */
export const RECORD_SELECT = RECORD_COLUMNS.map((c) => `o.${c}`).join(', ')
/** The same columns unqualified, for `RETURNING` */
export const RECORD_RETURNING = RECORD_COLUMNS.join(', ')

/** One row of RECORD_SELECT as a record, its properties in one order (one object shape for every record). */
export function toRecord (row: unknown[]): ObjectRecord {
  const record = { id: row[at.id] as number, object_type: row[at.object_type] as ObjectTypeName, nickname: row[at.nickname] as string, status: row[at.status] as Status } as ObjectRecord
  const fields = record as unknown as Record<string, unknown>
  for (const [field, i, flag] of OWN) fields[field] = flag ? row[i] !== 0 : row[i]
  record.created = row[at.created] as number
  record.modified = row[at.modified] as number
  record.user_created = row[at.user_created] as number
  record.user_modified = row[at.user_modified] as number
  record.read_groups = (row[at.read_groups] as string[] | null) ?? []
  record.write_groups = (row[at.write_groups] as string[] | null) ?? []
  record.file = storedFileJson(row[at.file] as string | null)
  return record
}
