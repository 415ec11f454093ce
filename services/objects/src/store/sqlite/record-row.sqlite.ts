import type { ObjectTypeName } from '../../core/object-types.js'
import { storedFileJson } from '../../core/media-file.js'
import type { ObjectRecord, Status } from '../../core/types.js'

/**
 * The `objects` columns of a record, read in raw mode (one array per row): better-sqlite3 builds a
 * keyed object per row at about twice the cost, and records are what every read loads.
 */
const RECORD_COLUMNS = [
  'id', 'object_type', 'nickname', 'status', 'title', 'description', 'subject', 'abstract', 'body', 'note',
  'lang', 'rights', 'license', 'creator', 'publisher', 'comments', 'valid', 'start_date', 'end_date',
  'publication_date', 'created', 'modified', 'user_created', 'user_modified', 'read_groups', 'write_groups', 'file',
] as const

type Column = typeof RECORD_COLUMNS[number]

/** The select list matching `toRecord`: `SELECT ${RECORD_SELECT} FROM objects o …` */
export const RECORD_SELECT = RECORD_COLUMNS.map((c) => `o.${c}`).join(', ')

/** A raw row of RECORD_SELECT. */
export type RecordRow = unknown[]

const at = Object.fromEntries(RECORD_COLUMNS.map((c, i) => [c, i])) as Record<Column, number>
const str = (row: RecordRow, c: Column) => row[at[c]] as string
const num = (row: RecordRow, c: Column) => row[at[c]] as number
const optStr = (row: RecordRow, c: Column) => row[at[c]] as string | null
const optNum = (row: RecordRow, c: Column) => row[at[c]] as number | null
const json = <T>(row: RecordRow, c: Column): T | null => {
  const text = optStr(row, c)
  return text === null ? null : JSON.parse(text) as T
}

/** Field by field, not a spread: one object shape for every record keeps the read path fast. */
export function toRecord (row: RecordRow): ObjectRecord {
  return {
    id: num(row, 'id'),
    object_type: str(row, 'object_type') as ObjectTypeName,
    nickname: str(row, 'nickname'),
    status: str(row, 'status') as Status,
    title: optStr(row, 'title'), description: optStr(row, 'description'), subject: optStr(row, 'subject'),
    abstract: optStr(row, 'abstract'), body: optStr(row, 'body'), note: optStr(row, 'note'),
    lang: str(row, 'lang'), rights: str(row, 'rights'), license: str(row, 'license'),
    creator: str(row, 'creator'), publisher: str(row, 'publisher'), comments: str(row, 'comments'),
    valid: num(row, 'valid') !== 0,
    start_date: optNum(row, 'start_date'), end_date: optNum(row, 'end_date'), publication_date: optNum(row, 'publication_date'),
    created: num(row, 'created'), modified: num(row, 'modified'),
    user_created: num(row, 'user_created'), user_modified: num(row, 'user_modified'),
    // NULL = not protected / writer groups decide
    read_groups: json<string[]>(row, 'read_groups') ?? [],
    write_groups: json<string[]>(row, 'write_groups') ?? [],
    file: storedFileJson(optStr(row, 'file')),
  }
}
