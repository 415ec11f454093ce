import { present } from '@content/platform'
import type { SortKey } from '@content/api-schema'
import type { Clause, ListScope, Position } from '../../core/list-query.js'
import type { ListsPort, SelectedRow, Selection } from '../../core/ports.js'
import { SCOPE } from './kept-counts.sqlite.js'
import { VISIBLE, filterParams, filtered, visibilityParams, type Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

/**
 * Lists of decisions §15 in SQL: a scope's rows (tree, closure or relations joined to `objects`), the
 * clauses as conditions with bound values (never spliced), the sort with nulls last and `id` last,
 * keyset paging from a cursor's position. Multi-valued fields (tags, categories, parents, relations)
 * are `EXISTS` tests, so a row never repeats and totals count distinct objects.
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

/** The rows of a scope: its FROM and WHERE, the column of the row's id, and of its priority. */
function scopeSql (scope: ListScope, p: Params): { from: string, id: string, priority: string, extra: string } {
  switch (scope.kind) {
    case 'descendants': return {
      from: `FROM closure c JOIN objects o ON o.id = c.descendant_id WHERE c.ancestor_id = ${p.add(scope.node)} AND c.descendant_id <> c.ancestor_id`,
      id: 'c.descendant_id', priority: 'c.priority', extra: 'NULL AS priority, NULL AS params',
    }
    case 'children': return {
      from: `FROM tree t JOIN objects o ON o.id = t.object_id WHERE t.parent_id = ${p.add(scope.node)} ${SCOPE[scope.scope]}${scope.exclude === undefined ? '' : ` AND t.object_id <> ${p.add(scope.exclude)}`}`,
      id: 't.object_id', priority: 't.priority', extra: 'NULL AS priority, NULL AS params',
    }
    case 'related': return {
      from: `FROM relations r JOIN objects o ON o.id = r.related_id WHERE r.object_id = ${p.add(scope.object)} AND r.name = ${p.add(scope.name)}`,
      id: 'r.related_id', priority: 'r.priority', extra: 'r.priority AS priority, r.params AS params',
    }
  }
}

const COLUMNS: Record<string, string> = {
  id: 'o.id', object_type: 'o.object_type', nickname: 'o.nickname', title: 'o.title', description: 'o.description', lang: 'o.lang',
  created: 'o.created', modified: 'o.modified', start_date: 'o.start_date', end_date: 'o.end_date', publication_date: 'o.publication_date',
}

/** The value a clause tests, as an SQL expression (custom properties: absent = NULL). */
function testedValue (field: string, p: Params): string {
  const column = COLUMNS[field]
  if (column !== undefined) return column
  if (field.startsWith('custom_properties.')) {
    return `(SELECT cp.value FROM custom_properties cp WHERE cp.object_id = o.id AND cp.name = ${p.add(field.slice('custom_properties.'.length))})`
  }
  throw new Error(`no column for ${field}`)
}

/** Membership tests of the multi-valued fields: `values` is the bound list. */
function hasAny (field: string, values: string, p: Params): string {
  switch (field) {
    case 'tags': return `EXISTS (SELECT 1 FROM object_tags ot JOIN tags tg ON tg.id = ot.tag_id WHERE ot.object_id = o.id AND tg.name IN ${values})`
    case 'categories': return `EXISTS (SELECT 1 FROM object_categories oc JOIN categories ca ON ca.id = oc.category_id WHERE oc.object_id = o.id AND ca.name IN ${values})`
    case 'parent': return `EXISTS (SELECT 1 FROM tree tp WHERE tp.object_id = o.id AND tp.parent_id IN ${values})`
    case 'ancestor': return `EXISTS (SELECT 1 FROM closure ca WHERE ca.descendant_id = o.id AND ca.ancestor_id <> o.id AND ca.ancestor_id IN ${values})`
    default: return `EXISTS (SELECT 1 FROM relations rr WHERE rr.object_id = o.id AND rr.name = ${p.add(field.slice('related.'.length))} AND rr.related_id IN ${values})`
  }
}

const MULTI = (field: string) => field === 'tags' || field === 'categories' || field === 'parent' || field === 'ancestor' || field.startsWith('related.')
const COMPARE = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const

function clauseSql (c: Clause, p: Params): string {
  if (c.field === 'query') {
    const needle = p.add(String(c.values[0]).trim().toLowerCase())
    return `(ci_contains(o.title, ${needle}) OR ci_contains(o.description, ${needle}) OR ci_contains(o.body, ${needle}))`
  }
  if (MULTI(c.field)) {
    const test = hasAny(c.field, p.list(c.values), p)
    return c.op === 'eq' || c.op === 'in' ? test : `NOT ${test}`
  }
  const v = testedValue(c.field, p)
  switch (c.op) {
    case 'eq': return `${v} = ${p.add(c.values[0])}`
    case 'neq': return `(${v} IS NULL OR ${v} <> ${p.add(c.values[0])})`
    case 'in': return `${v} IN ${p.list(c.values)}`
    case 'nin': return `(${v} IS NULL OR ${v} NOT IN ${p.list(c.values)})`
    case 'lt': case 'lte': case 'gt': case 'gte': return `${v} ${COMPARE[c.op]} ${p.add(c.values[0])}`
    case 'between': return `${v} BETWEEN ${p.add(c.values[0])} AND ${p.add(c.values[1])}`
    case 'null': return c.values[0] === 'true' ? `${v} IS NULL` : `${v} IS NOT NULL`
    case 'contains': return `ci_contains(${v}, ${p.add(String(c.values[0]).toLowerCase())})`
    case 'starts_with': return `ci_starts_with(${v}, ${p.add(String(c.values[0]).toLowerCase())})`
  }
}

/** ANDed clauses, and the OR groups (each ANDed within) ORed together as one more. */
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

/** The expression of a sort key; `relevance` ranks a title match before a description match before the rest. */
function keyExpression (key: SortKey, priority: string, needle: string | null, p: Params): string {
  if (key.field === 'priority') return priority
  if (key.field === 'relevance') {
    const n = p.add(needle ?? '')
    return `(CASE WHEN ci_contains(o.title, ${n}) THEN 0 WHEN ci_contains(o.description, ${n}) THEN 1 ELSE 2 END)`
  }
  return present(COLUMNS[key.field], `the column of ${key.field}`)
}

/**
 * Rows strictly after `at` in the order: the first key that differs decides. Nulls come after every
 * value in both directions, and the id (ascending) breaks every tie.
 */
function afterSql (exprs: string[], keys: SortKey[], at: Position, idColumn: string, p: Params): string {
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

export function selectSql (scope: ListScope, s: Selection): { page: Built, count: Built | null, keyCount: number } {
  const p = new Params()
  const { from, id, priority, extra } = scopeSql(scope, p)
  const vis = visibilityParams(s.visibility)
  const legacy = filterParams(s.filter)
  const needle = s.clauses.find((c) => c.field === 'query' && c.group === null)?.values[0] ?? (s.filter.query === '' ? null : s.filter.query)
  const where = `${from} AND ${VISIBLE} AND ${filtered(s.filter)}${clausesSql(s.clauses, p)}`
  const exprs = s.sort.map((k) => keyExpression(k, priority, needle === null ? null : String(needle).trim().toLowerCase(), p))
  const order = [...s.sort.flatMap((k, i) => [`${exprs[i]} IS NULL`, `${exprs[i]}${k.descending ? ' DESC' : ''}`]), id].join(', ')
  const after = s.after === null ? '' : afterSql(exprs, s.sort, s.after, id, p)
  const keyColumns = exprs.map((e, i) => `${e} AS k${i}`).join(', ')
  const params = { ...vis, ...legacy, ...p.values, limit: s.limit, offset: s.offset }
  return {
    page: { sql: `SELECT ${id} AS id, ${extra}${keyColumns === '' ? '' : `, ${keyColumns}`} ${where}${after} ORDER BY ${order} LIMIT @limit OFFSET @offset`, params },
    count: s.count ? { sql: `SELECT COUNT(*) AS n ${where}`, params } : null,
    keyCount: exprs.length,
  }
}

export function select (st: Statements, scope: ListScope, s: Selection): { rows: SelectedRow[], total: number | null } {
  const { page, count, keyCount } = selectSql(scope, s)
  const rows = st.all<Record<string, unknown>>(page.sql, page.params).map((r): SelectedRow => ({
    id: r.id as number,
    position: { keys: Array.from({ length: keyCount }, (_, i) => r[`k${i}`] as string | number | null), id: r.id as number },
    priority: (r.priority as number | null) ?? null,
    params: (r.params as string | null) ?? null,
  }))
  const total = count === null ? null : present(st.one<{ n: number }>(count.sql, count.params), 'the COUNT row').n
  return { rows, total }
}

export const listsPort = (st: Statements): ListsPort => ({
  select: (scope, selection) => answer(() => select(st, scope, selection)),
})
