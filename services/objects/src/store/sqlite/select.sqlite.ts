import { present } from '@content/platform'
import type { SortKey } from '@content/api-schema'
import type { Clause, ListScope } from '../../core/list-query.js'
import type { ListsPort, SelectedRow, Selection } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { LIST_COLUMNS } from '../sql-columns.js'
import { INDEXED_TEXT, MULTI, SqlParams, clausesSql, comparisonSql, customPropertySql, keptTag, keysetAfter, multiSql, searchNeedle, tagOrdered } from '../sql-select.js'
import { SCOPE } from './kept-counts.sqlite.js'
import { countTagged } from './tag-counts.sqlite.js'
import { containsSearched, filterParams, filtered, visibilityParams, visibleSql, type Statements } from './rows.sqlite.js'
import { SEARCHED_COLUMNS, ftsPhrase, textCandidatesSql } from './text-index.sqlite.js'
import { answer } from './transactions.sqlite.js'

/**
 * Lists of decisions §15 in SQL: a scope's rows (tree, closure or relations joined to `objects`), the
 * clauses as conditions with bound values (never spliced), the sort with nulls last and `id` last,
 * keyset paging from a cursor's position. Multi-valued fields (tags, categories, parents, relations)
 * are `IN` id sets, so a row never repeats and totals count distinct objects, and an index can drive
 * a selective one; text searches take their candidates from the trigram index. What PostgreSQL says
 * alike (values, id sets, comparisons, keyset paging) is in sql-select.ts.
 */

interface Built { sql: string, params: Record<string, unknown> }

class Params extends SqlParams {
  /** named id sets computed once per statement (`WITH … AS MATERIALIZED`) */
  readonly sets: string[] = []

  /** An id set the statement computes once; answers its name. */
  set (sql: string): string {
    const name = `s${this.sets.length}`
    this.sets.push(`${name} AS MATERIALIZED (${sql})`)
    return name
  }

  get with (): string {
    return this.sets.length === 0 ? '' : `WITH ${this.sets.join(', ')} `
  }
}

/**
 * The rows of a scope: its FROM and WHERE, the column of the row's id, and of its priority. Scope first,
 * the list's own rows are walked (a section's children, a subtree); objects first, an index on `objects`
 * (a tag's objects, a date range, an order) drives and each row's place in the scope is one key lookup.
 */
function scopeSql (scope: ListScope, p: Params, objectsFirst: boolean): { from: string, id: string, priority: string, extra: string } {
  const join = (table: string, on: string, rest: string) => objectsFirst
    ? `FROM objects o CROSS JOIN ${table} ON ${on} WHERE ${rest}`
    : `FROM ${table} JOIN objects o ON ${on} WHERE ${rest}`
  switch (scope.kind) {
    case 'descendants': return {
      from: join('closure c', 'o.id = c.descendant_id', `c.ancestor_id = ${p.add(scope.node)} AND c.descendant_id <> c.ancestor_id`),
      id: objectsFirst ? 'o.id' : 'c.descendant_id', priority: 'c.priority', extra: 'NULL AS priority, NULL AS params',
    }
    case 'children': return {
      from: join('tree t', 'o.id = t.object_id', `t.parent_id = ${p.add(scope.node)} ${SCOPE[scope.scope]}${scope.exclude === undefined ? '' : ` AND t.object_id <> ${p.add(scope.exclude)}`}`),
      id: objectsFirst ? 'o.id' : 't.object_id', priority: 't.priority', extra: 'NULL AS priority, NULL AS params',
    }
    case 'related': return {
      from: join('relations r', 'o.id = r.related_id', `r.object_id = ${p.add(scope.object)} AND r.name = ${p.add(scope.name)}`),
      id: objectsFirst ? 'o.id' : 'r.related_id', priority: 'r.priority', extra: 'r.priority AS priority, r.params AS params',
    }
  }
}

/** Conditions an index on `objects` serves (FTS candidates included), and sort keys an index orders. */
function drives (c: Clause): boolean {
  if (c.op === 'eq' || c.op === 'in') {
    if (MULTI(c.field) || c.field === 'id' || c.field === 'nickname') return true
  }
  if (c.field === 'publication_date' && c.op !== 'neq' && c.op !== 'nin' && c.op !== 'null') return true
  return (c.op === 'contains' || c.op === 'starts_with') && INDEXED_TEXT.has(c.field) && ftsPhrase(String(c.values[0]).toLowerCase()) !== null
}
const ORDERED_BY_INDEX = new Set(['id', 'publication_date'])

/**
 * Whether `objects` should drive: only for the descendants of the publication (every object of the
 * store, so walking the scope is walking everything) when a condition or the first sort key has an
 * index. Smaller scopes are walked: their size bounds the work.
 */
function objectsFirst (scope: ListScope, s: Selection): boolean {
  if (scope.kind !== 'descendants' || scope.node !== PUBLICATION_ID) return false
  const groups = new Map<number, boolean>()
  for (const c of s.clauses) if (c.group !== null) groups.set(c.group, (groups.get(c.group) ?? false) || drives(c))
  return s.clauses.some((c) => c.group === null && drives(c)) ||
    (groups.size > 0 && [...groups.values()].every(Boolean)) ||
    (s.sort[0] !== undefined && ORDERED_BY_INDEX.has(s.sort[0].field))
}

/** The value a clause tests, as an SQL expression (custom properties: absent = NULL). */
function testedValue (field: string, p: Params): string {
  const column = LIST_COLUMNS[field]
  if (column !== undefined) return column
  if (field.startsWith('custom_properties.')) return customPropertySql(field, p)
  throw new Error(`no column for ${field}`)
}

/**
 * Candidates from the trigram index for text found in `columns` (a superset: the exact check stays), or
 * '' when the needle is too short or holds what the index folds differently.
 */
function textCandidates (needle: string, columns: string, p: Params): string {
  const phrase = ftsPhrase(needle)
  return phrase === null ? '' : `o.id IN ${p.set(textCandidatesSql(p.add(`${columns} : ${phrase}`)))} AND `
}

function clauseSql (c: Clause, p: Params): string {
  if (c.field === 'query') {
    const text = String(c.values[0]).trim().toLowerCase()
    const needle = p.add(text)
    return `(${textCandidates(text, SEARCHED_COLUMNS, p)}${containsSearched(needle)})`
  }
  if (MULTI(c.field)) return multiSql(c, p)
  const v = testedValue(c.field, p)
  return comparisonSql(c, v, p, (op) => {
    const text = String(c.values[0]).toLowerCase()
    const narrowed = INDEXED_TEXT.has(c.field) ? textCandidates(text, c.field, p) : ''
    return `(${narrowed}${op === 'contains' ? 'ci_contains' : 'ci_starts_with'}(${v}, ${p.add(text)}))`
  })
}

/** The expression of a sort key; `relevance` ranks a title match before a description match before the rest. */
function keyExpression (key: SortKey, priority: string, needle: string | null, p: Params): string {
  if (key.field === 'priority') return priority
  if (key.field === 'relevance') {
    const n = p.add(needle ?? '')
    return `(CASE WHEN ci_contains(o.title, ${n}) THEN 0 WHEN ci_contains(o.description, ${n}) THEN 1 ELSE 2 END)`
  }
  return present(LIST_COLUMNS[key.field], `the column of ${key.field}`)
}

/**
 * The whole store's objects of one tag, newest publication first: the tag rows' own date index gives
 * the order (list-indexes.sqlite.ts), so a page reads its entries and stops. The tag clause it serves is
 * left out of the rest; null when the list is not of that shape.
 */
function tagOrder (scope: ListScope, s: Selection, p: Params): { from: string, id: string, priority: string, extra: string, dateKey: string, rest: Clause[] } | null {
  const tag = tagOrdered(scope, s)
  if (tag === undefined) return null
  return {
    from: `FROM object_tags ot CROSS JOIN objects o ON o.id = ot.object_id CROSS JOIN closure c ON c.ancestor_id = ${p.add(PUBLICATION_ID)} AND c.descendant_id = o.id
      WHERE ot.tag_id = (SELECT id FROM tags WHERE name = ${p.add(tag.values[0])}) AND c.descendant_id <> c.ancestor_id`,
    id: 'ot.object_id', priority: 'c.priority', extra: 'NULL AS priority, NULL AS params', dateKey: 'ot.publication_date',
    rest: s.clauses.filter((c) => c !== tag),
  }
}

export function selectSql (scope: ListScope, s: Selection): { page: Built, count: Built | null, keyCount: number } {
  const p = new Params()
  const tagged = s.count ? keptTag(scope, s) : null
  const countSql = tagged === null ? null : countTagged(p.add(tagged))
  const byTag = tagOrder(scope, s, p)
  const { from, id, priority, extra } = byTag ?? scopeSql(scope, p, objectsFirst(scope, s))
  const clauses = byTag?.rest ?? s.clauses
  const vis = visibilityParams(s.visibility)
  const legacy = filterParams(s.filter)
  const needle = searchNeedle(s)
  const where = `${from} AND ${visibleSql(s.visibility)} AND ${filtered(s.filter)}${clausesSql(clauses, (c) => clauseSql(c, p))}`
  const exprs = s.sort.map((k, i) => (i === 0 && byTag ? byTag.dateKey : keyExpression(k, priority, needle, p)))
  // nulls last both ways: a descending key has them last already (an index can serve it); ascending says so
  const order = [...s.sort.map((k, i) => `${exprs[i]} ${k.descending ? 'DESC' : 'NULLS LAST'}`), id].join(', ')
  const after = s.after === null ? '' : keysetAfter(exprs, s.sort, s.after, id, p)
  const keyColumns = exprs.map((e, i) => `${e} AS k${i}`).join(', ')
  const params = { ...vis, ...legacy, ...p.values, limit: s.limit, offset: s.offset }
  return {
    page: { sql: `${p.with}SELECT ${id} AS id, ${extra}${keyColumns === '' ? '' : `, ${keyColumns}`} ${where}${after} ORDER BY ${order} LIMIT @limit OFFSET @offset`, params },
    count: !s.count ? null : { sql: countSql ?? `${p.with}SELECT COUNT(*) AS n ${where}`, params },
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
