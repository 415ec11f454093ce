import { OWN_FIELD_NAMES, OWN_FIELDS } from '@content/api-schema'
import type { ObjectTypeName } from '../../core/object-types.js'
import { storedFileJson } from '../../core/media-file.js'
import type { ObjectRecord, Status } from '../../core/types.js'

/**
 * The `objects` columns of a record, read in raw mode (one array per row): better-sqlite3 builds a
 * keyed object per row at a cost of its own, and records are what every read loads.
 */
const RECORD_COLUMNS = [
  'id', 'object_type', 'nickname', 'status', ...OWN_FIELD_NAMES,
  'created', 'modified', 'user_created', 'user_modified', 'read_groups', 'write_groups', 'file',
] as const

type Column = typeof RECORD_COLUMNS[number]

/** Each own field's place in the row, and whether it is a flag (stored 0/1). */
const OWN = OWN_FIELD_NAMES.map((f) => [f, RECORD_COLUMNS.indexOf(f), OWN_FIELDS[f].kind === 'flag'] as const)

/** The select list matching `toRecord`: `SELECT ${RECORD_SELECT} FROM objects o …` */
export const RECORD_SELECT = RECORD_COLUMNS.map((c) => `o.${c}`).join(', ')

/** A raw row of RECORD_SELECT. */
export type RecordRow = unknown[]

const at = Object.fromEntries(RECORD_COLUMNS.map((c, i) => [c, i])) as Record<Column, number>
const str = (row: RecordRow, c: Column) => row[at[c]] as string
const num = (row: RecordRow, c: Column) => row[at[c]] as number
const optStr = (row: RecordRow, c: Column) => row[at[c]] as string | null
const json = <T>(row: RecordRow, c: Column): T | null => {
  const text = optStr(row, c)
  return text === null ? null : JSON.parse(text) as T
}

/**
 * The own fields in the table's order, then the rest: every record gets its properties in one order, so
 * they all share one object shape and the read path stays fast.
 */
export function toRecord (row: RecordRow): ObjectRecord {
  const record = { id: num(row, 'id'), object_type: str(row, 'object_type') as ObjectTypeName, nickname: str(row, 'nickname'), status: str(row, 'status') as Status } as ObjectRecord
  const fields = record as unknown as Record<string, unknown>
  for (const [field, i, flag] of OWN) fields[field] = flag ? row[i] !== 0 : row[i]
  record.created = num(row, 'created')
  record.modified = num(row, 'modified')
  record.user_created = num(row, 'user_created')
  record.user_modified = num(row, 'user_modified')
  // NULL = not protected / writer groups decide
  record.read_groups = json<string[]>(row, 'read_groups') ?? []
  record.write_groups = json<string[]>(row, 'write_groups') ?? []
  record.file = storedFileJson(optStr(row, 'file'))
  return record
}
