import { present } from '@content/platform'
import type { SortKey } from '@content/api-schema'
import type { Clause, ListScope, Position } from '../../core/list-query.js'
import type { ListsPort, SelectedRow, Selection } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { LIST_COLUMNS } from '../sql-columns.js'
import { INDEXED_TEXT, MULTI, SqlParams, clausesSql, comparisonSql, customPropertySql, keptTag, keysetAfter, multiSql, searchNeedle, tagOrdered } from '../sql-select.js'
import type { Db } from './db.postgres.js'
import { SCOPE, countTagged } from './kept-counts.postgres.js'
import { VISIBLE, filterParams, filtered, likeLiteral, textMatch, visibilityParams, visibleSql } from './rows.postgres.js'
import { lowered } from './schema.postgres.js'

/**
 * Lists of decisions §15 in PostgreSQL, as select.sqlite.ts builds them (what both say alike is in
 * sql-select.ts): a scope's rows (tree, closure or relations joined to `objects`), the clauses as
 * conditions with bound values (never spliced), the sort with nulls last both ways and `id` last, keyset
 * paging from a cursor's position. Multi-valued fields
 * are `IN` id sets, so a row never repeats and totals count distinct objects; text conditions are LIKE
 * patterns over the lower-cased texts, which their trigram indexes serve. The planner chooses which side
 * drives; the orders are those of indexes (`closure_order`, `tree_children`, `objects_publication…`,
 * `object_tags_by_date`), so a page reads its rows and stops.
 */

interface Built { sql: string, params: Record<string, unknown> }

function scopeSql (scope: ListScope, p: SqlParams): { from: string, id: string, priority: string, extra: string } {
  switch (scope.kind) {
    case 'descendants': return {
      from: `FROM closure c JOIN objects o ON o.id = c.descendant_id WHERE c.ancestor_id = ${p.add(scope.node)} AND c.descendant_id <> c.ancestor_id`,
      id: 'c.descendant_id', priority: 'c.priority', extra: 'NULL::bigint AS priority, NULL::text AS params',
    }
    case 'children': return {
      from: `FROM tree t JOIN objects o ON o.id = t.object_id WHERE t.parent_id = ${p.add(scope.node)} ${SCOPE[scope.scope]}${scope.exclude === undefined ? '' : ` AND t.object_id <> ${p.add(scope.exclude)}`}`,
      id: 't.object_id', priority: 't.priority', extra: 'NULL::bigint AS priority, NULL::text AS params',
    }
    case 'related': return {
      from: `FROM relations r JOIN objects o ON o.id = r.related_id WHERE r.object_id = ${p.add(scope.object)} AND r.name = ${p.add(scope.name)}`,
      id: 'r.related_id', priority: 'r.priority', extra: 'r.priority AS priority, r.params AS params',
    }
  }
}

/** Text columns compare as bytes (code points), as SQLite's and the model's comparisons do, whatever the database's collation. */
const TEXT = new Set(['object_type', 'nickname', 'title', 'description', 'lang'])

/** The value a clause tests (custom properties: absent = NULL), and whether it is a text. */
function testedValue (field: string, p: SqlParams): { v: string, text: boolean } {
  const column = LIST_COLUMNS[field]
  if (column !== undefined) return { v: column, text: TEXT.has(field) }
  if (field.startsWith('custom_properties.')) return { v: customPropertySql(field, p), text: true }
  throw new Error(`no column for ${field}`)
}

function clauseSql (c: Clause, p: SqlParams): string {
  if (c.field === 'query') return textMatch(p.add(`%${likeLiteral(String(c.values[0]).trim().toLowerCase())}%`))
  if (MULTI(c.field)) return multiSql(c, p)
  const tested = testedValue(c.field, p)
  return comparisonSql(c, tested.text ? `${tested.v} COLLATE "C"` : tested.v, p, (op) => {
    const text = likeLiteral(String(c.values[0]).toLowerCase())
    const pattern = p.add(op === 'contains' ? `%${text}%` : `${text}%`)
    // title and description: the very expression their trigram indexes hold
    return INDEXED_TEXT.has(c.field) ? textMatch(pattern, [c.field]) : `${lowered(tested.v)} LIKE ${pattern}`
  })
}

/** A sort key's expression; `relevance` ranks a title match before a description match before the rest. */
function keyExpression (key: SortKey, priority: string, needle: string | null, p: SqlParams): string {
  if (key.field === 'priority') return priority
  if (key.field === 'relevance') {
    const pattern = p.add(`%${likeLiteral(needle ?? '')}%`)
    return `(CASE WHEN ${lowered('o.title')} LIKE ${pattern} THEN 0 WHEN ${lowered('o.description')} LIKE ${pattern} THEN 1 ELSE 2 END)`
  }
  const column = present(LIST_COLUMNS[key.field], `the column of ${key.field}`)
  return TEXT.has(key.field) ? `${column} COLLATE "C"` : column
}

/** Rows strictly after `at` in the order (sql-select.ts `keysetAfter`), said of both ids in id order. */
function afterSql (exprs: string[], keys: SortKey[], at: Position, idColumn: string, p: SqlParams): string {
  if (keys.length === 0) {
    // in id order: every scope joins `o.id` to its id column, so the bound holds for both; said of both,
    // the planner starts both index scans at the position (a merge join walked `objects` from its first
    // id to the cursor's: 1.6 s a page at page 10,000 of a million objects)
    const id = p.add(at.id)
    return ` AND ${idColumn} > ${id} AND o.id > ${id}`
  }
  return keysetAfter(exprs, keys, at, idColumn, p)
}

/** The whole store's objects of one tag, newest publication first: the tag rows' own date index gives the order. */
function tagOrder (scope: ListScope, s: Selection, p: SqlParams): { from: string, id: string, priority: string, extra: string, dateKey: string, rest: Clause[] } | null {
  const tag = tagOrdered(scope, s)
  if (tag === undefined) return null
  return {
    from: `FROM object_tags ot JOIN objects o ON o.id = ot.object_id JOIN closure c ON c.ancestor_id = ${p.add(PUBLICATION_ID)} AND c.descendant_id = o.id
      WHERE ot.tag_id = (SELECT id FROM tags WHERE name = ${p.add(tag.values[0])}) AND c.descendant_id <> c.ancestor_id`,
    id: 'ot.object_id', priority: 'c.priority', extra: 'NULL::bigint AS priority, NULL::text AS params', dateKey: 'ot.publication_date',
    rest: s.clauses.filter((c) => c !== tag),
  }
}

export function selectSql (scope: ListScope, s: Selection): { page: Built, count: Built | null, keyCount: number } {
  const p = new SqlParams()
  const tagged = s.count ? keptTag(scope, s) : null
  const countSql = tagged === null ? null : countTagged(p.add(tagged), VISIBLE)
  const byTag = tagOrder(scope, s, p)
  const { from, id, priority, extra } = byTag ?? scopeSql(scope, p)
  const clauses = byTag?.rest ?? s.clauses
  const needle = searchNeedle(s)
  const where = `${from} AND ${visibleSql(s.visibility)} AND ${filtered(s.filter)}${clausesSql(clauses, (c) => clauseSql(c, p))}`
  const exprs = s.sort.map((k, i) => (i === 0 && byTag ? byTag.dateKey : keyExpression(k, priority, needle, p)))
  const order = [...s.sort.map((k, i) => `${exprs[i]} ${k.descending ? 'DESC' : 'ASC'} NULLS LAST`), id].join(', ')
  const after = s.after === null ? '' : afterSql(exprs, s.sort, s.after, id, p)
  const keyColumns = exprs.map((e, i) => `${e} AS k${i}`).join(', ')
  const params = { ...visibilityParams(s.visibility), ...filterParams(s.filter), ...p.values, limit: s.limit, offset: s.offset }
  return {
    page: { sql: `SELECT ${id} AS id, ${extra}${keyColumns === '' ? '' : `, ${keyColumns}`} ${where}${after} ORDER BY ${order} LIMIT @limit OFFSET @offset`, params },
    count: !s.count ? null : { sql: countSql ?? `SELECT COUNT(*) AS n ${where}`, params },
    keyCount: exprs.length,
  }
}

export async function select (db: Db, scope: ListScope, s: Selection): Promise<{ rows: SelectedRow[], total: number | null }> {
  const { page, count, keyCount } = selectSql(scope, s)
  const lists = db.perRun
  const [rows, total] = await Promise.all([
    lists.rawAll(page.sql, page.params),
    count === null ? null : lists.one<{ n: number }>(count.sql, count.params),
  ])
  return {
    rows: rows.map((r): SelectedRow => ({
      id: r[0] as number,
      position: { keys: Array.from({ length: keyCount }, (_, i) => r[3 + i] as string | number | null), id: r[0] as number },
      priority: (r[1] as number | null) ?? null,
      params: (r[2] as string | null) ?? null,
    })),
    total: total === null ? null : present(total, 'the COUNT row').n,
  }
}

export const listsPort = (db: Db): ListsPort => ({ select: (scope, selection) => select(db, scope, selection) })
