import { present } from '@content/platform'
import type { SortKey } from '@content/api-schema'
import type { Clause, ListScope, Position } from '../../core/list-query.js'
import type { ListsPort, SelectedRow, Selection } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { LIST_COLUMNS } from '../sql-columns.js'
import type { Db } from './db.postgres.js'
import { SCOPE, countTagged } from './kept-counts.postgres.js'
import { VISIBLE, filterParams, filtered, likeLiteral, textMatch, visibilityParams, visibleSql, withDrafts } from './rows.postgres.js'
import { lowered } from './schema.postgres.js'

/**
 * Lists of decisions §15 in PostgreSQL, as select.sqlite.ts builds them: a scope's rows (tree, closure or
 * relations joined to `objects`), the clauses as conditions with bound values (never spliced), the sort
 * with nulls last both ways and `id` last, keyset paging from a cursor's position. Multi-valued fields
 * are `IN` id sets, so a row never repeats and totals count distinct objects; text conditions are LIKE
 * patterns over the lower-cased texts, which their trigram indexes serve. The planner chooses which side
 * drives; the orders are those of indexes (`closure_order`, `tree_children`, `objects_publication…`,
 * `object_tags_by_date`), so a page reads its rows and stops.
 */

interface Built { sql: string, params: Record<string, unknown> }

class Params {
  readonly values: Record<string, unknown> = {}
  private n = 0
  add (value: unknown): string {
    const name = `v${this.n++}`
    this.values[name] = value
    return `@${name}`
  }

  list (values: readonly unknown[]): string {
    return `(${values.map((v) => this.add(v)).join(', ')})`
  }
}

function scopeSql (scope: ListScope, p: Params): { from: string, id: string, priority: string, extra: string } {
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
function testedValue (field: string, p: Params): { v: string, text: boolean } {
  const column = LIST_COLUMNS[field]
  if (column !== undefined) return { v: column, text: TEXT.has(field) }
  if (field.startsWith('custom_properties.')) {
    return { v: `(SELECT cp.value FROM custom_properties cp WHERE cp.object_id = o.id AND cp.name = ${p.add(field.slice('custom_properties.'.length))})`, text: true }
  }
  throw new Error(`no column for ${field}`)
}

function idsHaving (field: string, values: string, p: Params): string {
  switch (field) {
    case 'tags': return `SELECT ot.object_id FROM object_tags ot WHERE ot.tag_id IN (SELECT id FROM tags WHERE name IN ${values})`
    case 'categories': return `SELECT oc.object_id FROM object_categories oc WHERE oc.category_id IN (SELECT id FROM categories WHERE name IN ${values})`
    case 'parent': return `SELECT tp.object_id FROM tree tp WHERE tp.parent_id IN ${values}`
    case 'ancestor': return `SELECT ca.descendant_id FROM closure ca WHERE ca.ancestor_id IN ${values} AND ca.descendant_id <> ca.ancestor_id`
    default: return `SELECT rr.object_id FROM relations rr WHERE rr.related_id IN ${values} AND rr.name = ${p.add(field.slice('related.'.length))}`
  }
}

const MULTI = (field: string) => field === 'tags' || field === 'categories' || field === 'parent' || field === 'ancestor' || field.startsWith('related.')
const COMPARE = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const
const INDEXED_TEXT = new Set(['title', 'description'])

function clauseSql (c: Clause, p: Params): string {
  if (c.field === 'query') return textMatch(p.add(`%${likeLiteral(String(c.values[0]).trim().toLowerCase())}%`))
  if (MULTI(c.field)) return `o.id ${c.op === 'eq' || c.op === 'in' ? 'IN' : 'NOT IN'} (${idsHaving(c.field, p.list(c.values), p)})`
  const tested = testedValue(c.field, p)
  const v = tested.text ? `${tested.v} COLLATE "C"` : tested.v
  switch (c.op) {
    case 'eq': return `${v} = ${p.add(c.values[0])}`
    case 'neq': return `(${v} IS NULL OR ${v} <> ${p.add(c.values[0])})`
    case 'in': return `${v} IN ${p.list(c.values)}`
    case 'nin': return `(${v} IS NULL OR ${v} NOT IN ${p.list(c.values)})`
    case 'lt': case 'lte': case 'gt': case 'gte': return `${v} ${COMPARE[c.op]} ${p.add(c.values[0])}`
    case 'between': return `${v} BETWEEN ${p.add(c.values[0])} AND ${p.add(c.values[1])}`
    case 'null': return c.values[0] === 'true' ? `${v} IS NULL` : `${v} IS NOT NULL`
    case 'contains': case 'starts_with': {
      const text = likeLiteral(String(c.values[0]).toLowerCase())
      const pattern = p.add(c.op === 'contains' ? `%${text}%` : `${text}%`)
      // title and description: the very expression their trigram indexes hold
      return INDEXED_TEXT.has(c.field) ? textMatch(pattern, [c.field]) : `${lowered(tested.v)} LIKE ${pattern}`
    }
  }
}

function clausesSql (clauses: Clause[], p: Params): string {
  const and = clauses.filter((c) => c.group === null).map((c) => clauseSql(c, p))
  const groups = new Map<number, string[]>()
  for (const c of clauses) {
    if (c.group === null) continue
    groups.set(c.group, [...(groups.get(c.group) ?? []), clauseSql(c, p)])
  }
  if (groups.size > 0) and.push(`(${[...groups.values()].map((g) => `(${g.join(' AND ')})`).join(' OR ')})`)
  return and.length === 0 ? '' : ` AND ${and.join(' AND ')}`
}

/** A sort key's expression; `relevance` ranks a title match before a description match before the rest. */
function keyExpression (key: SortKey, priority: string, needle: string | null, p: Params): string {
  if (key.field === 'priority') return priority
  if (key.field === 'relevance') {
    const pattern = p.add(`%${likeLiteral(needle ?? '')}%`)
    return `(CASE WHEN ${lowered('o.title')} LIKE ${pattern} THEN 0 WHEN ${lowered('o.description')} LIKE ${pattern} THEN 1 ELSE 2 END)`
  }
  const column = present(LIST_COLUMNS[key.field], `the column of ${key.field}`)
  return TEXT.has(key.field) ? `${column} COLLATE "C"` : column
}

/** Rows strictly after `at` in the order: the first key that differs decides; nulls last both ways; the id breaks ties. */
function afterSql (exprs: string[], keys: SortKey[], at: Position, idColumn: string, p: Params): string {
  if (keys.length === 0) {
    // in id order: every scope joins `o.id` to its id column, so the bound holds for both; said of both,
    // the planner starts both index scans at the position (a merge join walked `objects` from its first
    // id to the cursor's: 1.6 s a page at page 10,000 of a million objects)
    const id = p.add(at.id)
    return ` AND ${idColumn} > ${id} AND o.id > ${id}`
  }
  const ors: string[] = []
  const equal: string[] = []
  keys.forEach((key, i) => {
    const e = exprs[i] as string
    const v = at.keys[i] ?? null
    if (v !== null) {
      ors.push([...equal, `(${e} ${key.descending ? '<' : '>'} ${p.add(v)} OR ${e} IS NULL)`].join(' AND '))
      equal.push(`${e} = ${p.add(v)}`)
    } else {
      equal.push(`${e} IS NULL`)
    }
  })
  ors.push([...equal, `${idColumn} > ${p.add(at.id)}`].join(' AND '))
  return ` AND (${ors.map((o) => `(${o})`).join(' OR ')})`
}

/** The whole store's objects of one tag, newest publication first: the tag rows' own date index gives the order. */
function tagOrder (scope: ListScope, s: Selection, p: Params): { from: string, id: string, priority: string, extra: string, dateKey: string, rest: Clause[] } | null {
  const first = s.sort[0]
  const tag = s.clauses.find((c) => c.field === 'tags' && c.op === 'eq' && c.group === null)
  if (scope.kind !== 'descendants' || scope.node !== PUBLICATION_ID || first?.field !== 'publication_date' || !first.descending || tag === undefined) return null
  return {
    from: `FROM object_tags ot JOIN objects o ON o.id = ot.object_id JOIN closure c ON c.ancestor_id = ${p.add(scope.node)} AND c.descendant_id = o.id
      WHERE ot.tag_id = (SELECT id FROM tags WHERE name = ${p.add(tag.values[0])}) AND c.descendant_id <> c.ancestor_id`,
    id: 'ot.object_id', priority: 'c.priority', extra: 'NULL::bigint AS priority, NULL::text AS params', dateKey: 'ot.publication_date',
    rest: s.clauses.filter((c) => c !== tag),
  }
}

/** The tag of a whole-store list filtered by that one tag and nothing else: its total is kept. */
function keptTag (scope: ListScope, s: Selection): string | null {
  const [only] = s.clauses
  if (scope.kind !== 'descendants' || scope.node !== PUBLICATION_ID || s.clauses.length !== 1 || only === undefined || withDrafts(s.visibility)) return null
  if (only.field !== 'tags' || only.op !== 'eq' || only.group !== null || s.filter.object_types.length > 0 || s.filter.query !== '') return null
  return String(only.values[0])
}

export function selectSql (scope: ListScope, s: Selection): { page: Built, count: Built | null, keyCount: number } {
  const p = new Params()
  const tagged = s.count ? keptTag(scope, s) : null
  const countSql = tagged === null ? null : countTagged(p.add(tagged), VISIBLE)
  const byTag = tagOrder(scope, s, p)
  const { from, id, priority, extra } = byTag ?? scopeSql(scope, p)
  const clauses = byTag?.rest ?? s.clauses
  const needle = s.clauses.find((c) => c.field === 'query' && c.group === null)?.values[0] ?? (s.filter.query === '' ? null : s.filter.query)
  const where = `${from} AND ${visibleSql(s.visibility)} AND ${filtered(s.filter)}${clausesSql(clauses, p)}`
  const exprs = s.sort.map((k, i) => (i === 0 && byTag ? byTag.dateKey : keyExpression(k, priority, needle === null ? null : String(needle).trim().toLowerCase(), p)))
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
