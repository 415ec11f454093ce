import { OWN_FIELD_NAMES, OWN_FIELDS } from '@content/api-schema'
import type { WritableColumns } from '../core/object-input.js'

/*
 * The `objects` table's columns as both SQL stores (SQLite and PostgreSQL) name and fill them.
 */

/** The columns a write sets: the own fields (a column each), and the file. */
export const COLUMNS = [...OWN_FIELD_NAMES, 'file'] as const

/** Column values of the fields a write gives: flags as 0/1, the file as JSON. */
export function columnValues (columns: Partial<WritableColumns>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of COLUMNS) {
    if (!(key in columns)) continue
    const value = columns[key]
    out[key] = key === 'file' ? (value == null ? null : JSON.stringify(value)) : OWN_FIELDS[key].kind === 'flag' ? (value ? 1 : 0) : value
  }
  return out
}

/** The column of each field a list filters or sorts by on the object's own row (`o`), decisions §15. */
export const LIST_COLUMNS: Readonly<Record<string, string>> = {
  id: 'o.id', object_type: 'o.object_type', nickname: 'o.nickname', title: 'o.title', description: 'o.description', lang: 'o.lang',
  created: 'o.created', modified: 'o.modified', start_date: 'o.start_date', end_date: 'o.end_date', publication_date: 'o.publication_date',
}
