import type Database from 'better-sqlite3'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ListFilter, MediaFileRecord, ObjectRecord, Status, Visibility } from '../../core/types.js'

/** An `objects` row: the record's columns, with booleans as integers and lists as JSON text. */
export interface ObjectRow extends Omit<ObjectRecord, 'object_type' | 'status' | 'valid' | 'read_groups' | 'write_groups' | 'file'> {
  object_type: string
  status: string
  valid: number
  read_groups: string | null
  write_groups: string | null
  file: string | null
}

export function toRecord (row: ObjectRow): ObjectRecord {
  return {
    ...row,
    object_type: row.object_type as ObjectTypeName,
    status: row.status as Status,
    valid: row.valid !== 0,
    read_groups: row.read_groups === null ? [] : JSON.parse(row.read_groups) as string[],
    write_groups: row.write_groups === null ? [] : JSON.parse(row.write_groups) as string[],
    file: row.file === null ? null : JSON.parse(row.file) as MediaFileRecord,
  }
}

export const groupsColumn = (groups: string[]): string | null => (groups.length === 0 ? null : JSON.stringify(groups))

/** Rows of `o` (objects) a visibility admits: status, publication window, read groups. */
export const VISIBLE = `o.status IN (SELECT value FROM json_each(@statuses))
  AND (@at IS NULL OR ((o.start_date IS NULL OR o.start_date <= @at) AND (o.end_date IS NULL OR o.end_date >= @at)))
  AND (o.read_groups IS NULL OR EXISTS (SELECT 1 FROM json_each(o.read_groups) g
       WHERE g.value IN (SELECT value FROM json_each(@groups))))`

/** Rows of `o` a list filter admits. */
export const FILTERED = `(@types IS NULL OR o.object_type IN (SELECT value FROM json_each(@types)))
  AND (@query IS NULL OR ci_contains(o.title, @query) OR ci_contains(o.description, @query) OR ci_contains(o.body, @query))`

export function visibilityParams (vis: Visibility) {
  return { statuses: JSON.stringify(vis.statuses), at: vis.at, groups: JSON.stringify(vis.groups) }
}

export function filterParams (filter: ListFilter) {
  return {
    types: filter.object_types.length === 0 ? null : JSON.stringify(filter.object_types),
    query: filter.query === '' ? null : filter.query.toLowerCase(),
  }
}

/** Prepared statements cached by their text; better-sqlite3 statements are reusable. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>()
  constructor (readonly db: Database.Database) {}

  get (sql: string): Database.Statement {
    let stmt = this.cache.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      this.cache.set(sql, stmt)
    }
    return stmt
  }

  all<T> (sql: string, params: object = {}): T[] {
    return this.get(sql).all(params) as T[]
  }

  one<T> (sql: string, params: object = {}): T | undefined {
    return this.get(sql).get(params) as T | undefined
  }

  run (sql: string, params: object = {}): Database.RunResult {
    return this.get(sql).run(params)
  }
}

export const idsJson = (ids: number[]): string => JSON.stringify(ids)
