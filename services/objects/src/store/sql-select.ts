import type { SortKey } from '@content/api-schema'
import type { Clause, ListScope, Position } from '../core/list-query.js'
import type { Selection } from '../core/ports.js'
import { PUBLICATION_ID } from '../core/publication.js'
import { withDrafts } from '../core/visibility.js'

/*
 * What both SQL stores' lists (select.sqlite.ts, select.postgres.ts) say alike: the bound values, the
 * multi-valued fields' id sets, the comparisons, the clauses' AND and OR groups, keyset paging and the
 * shapes a kept count or an index serves. What differs (text matching, casts, which side drives) stays
 * in each store.
 */

/** A statement's values, bound by name (`@v0`, …), never spliced into its text. */
export class SqlParams {
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

/** Fields an object holds several values of: a clause on one is an `IN` id set, so a row never repeats. */
export const MULTI = (field: string): boolean => field === 'tags' || field === 'categories' || field === 'parent' || field === 'ancestor' || field.startsWith('related.')

/** Text fields whose searches an index narrows (the stores' trigram indexes). */
export const INDEXED_TEXT = new Set(['title', 'description'])

const COMPARE = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const

/**
 * The objects having any of `values` (a bound list) in a multi-valued field, as an id set the planner
 * may drive the query from (each served by an index: tag, category, parent, ancestor, the related object).
 */
export function idsHaving (field: string, values: string, p: SqlParams): string {
  switch (field) {
    case 'tags': return `SELECT ot.object_id FROM object_tags ot WHERE ot.tag_id IN (SELECT id FROM tags WHERE name IN ${values})`
    case 'categories': return `SELECT oc.object_id FROM object_categories oc WHERE oc.category_id IN (SELECT id FROM categories WHERE name IN ${values})`
    case 'parent': return `SELECT tp.object_id FROM tree tp WHERE tp.parent_id IN ${values}`
    case 'ancestor': return `SELECT ca.descendant_id FROM closure ca WHERE ca.ancestor_id IN ${values} AND ca.descendant_id <> ca.ancestor_id`
    // served by relations_back (related_id)
    default: return `SELECT rr.object_id FROM relations rr WHERE rr.related_id IN ${values} AND rr.name = ${p.add(field.slice('related.'.length))}`
  }
}

/** A multi-valued field's clause: the object is (or is not) among those having one of its values. */
export const multiSql = (c: Clause, p: SqlParams): string => `o.id ${c.op === 'eq' || c.op === 'in' ? 'IN' : 'NOT IN'} (${idsHaving(c.field, p.list(c.values), p)})`

/** A custom property's value for a clause to test: absent = NULL. */
export const customPropertySql = (field: string, p: SqlParams): string =>
  `(SELECT cp.value FROM custom_properties cp WHERE cp.object_id = o.id AND cp.name = ${p.add(field.slice('custom_properties.'.length))})`

/**
 * A clause on the value `v`: absent values (NULL) are unequal to everything and in no list; the text
 * searches are the store's own (`text`).
 */
export function comparisonSql (c: Clause, v: string, p: SqlParams, text: (op: 'contains' | 'starts_with') => string): string {
  switch (c.op) {
    case 'eq': return `${v} = ${p.add(c.values[0])}`
    case 'neq': return `(${v} IS NULL OR ${v} <> ${p.add(c.values[0])})`
    case 'in': return `${v} IN ${p.list(c.values)}`
    case 'nin': return `(${v} IS NULL OR ${v} NOT IN ${p.list(c.values)})`
    case 'lt': case 'lte': case 'gt': case 'gte': return `${v} ${COMPARE[c.op]} ${p.add(c.values[0])}`
    case 'between': return `${v} BETWEEN ${p.add(c.values[0])} AND ${p.add(c.values[1])}`
    case 'null': return c.values[0] === 'true' ? `${v} IS NULL` : `${v} IS NOT NULL`
    case 'contains': case 'starts_with': return text(c.op)
  }
}

/** The ANDed clauses, and the OR groups (each ANDed within) ORed together as one more: ` AND …`, or ''. */
export function clausesSql (clauses: Clause[], clauseSql: (c: Clause) => string): string {
  const and = clauses.filter((c) => c.group === null).map(clauseSql)
  const groups = new Map<number, string[]>()
  for (const c of clauses) {
    if (c.group === null) continue
    groups.set(c.group, [...(groups.get(c.group) ?? []), clauseSql(c)])
  }
  if (groups.size > 0) and.push(`(${[...groups.values()].map((g) => `(${g.join(' AND ')})`).join(' OR ')})`)
  return and.length === 0 ? '' : ` AND ${and.join(' AND ')}`
}

/** The text a list searches for, lower-cased (`filter[query]` outside any OR group, or the legacy `query`), if any. */
export function searchNeedle (s: Selection): string | null {
  const needle = s.clauses.find((c) => c.field === 'query' && c.group === null)?.values[0] ?? (s.filter.query === '' ? null : s.filter.query)
  return needle === null ? null : String(needle).trim().toLowerCase()
}

/**
 * Rows strictly after `at` in the order (` AND (…)`): the first key that differs decides. Nulls come
 * after every value in both directions, and the id (ascending) breaks every tie.
 */
export function keysetAfter (exprs: string[], keys: SortKey[], at: Position, idColumn: string, p: SqlParams): string {
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

/**
 * The tag clause of a list that the tag rows' own date index orders: the whole store's objects of one
 * tag, newest publication first (a page reads its entries and stops); undefined for any other list.
 */
export function tagOrdered (scope: ListScope, s: Selection): Clause | undefined {
  const first = s.sort[0]
  if (scope.kind !== 'descendants' || scope.node !== PUBLICATION_ID || first?.field !== 'publication_date' || !first.descending) return undefined
  return s.clauses.find((c) => c.field === 'tags' && c.op === 'eq' && c.group === null)
}

/** The tag of a whole-store list filtered by that one tag and nothing else: its total is kept. */
export function keptTag (scope: ListScope, s: Selection): string | null {
  const [only] = s.clauses
  // drafts are counted row by row: the kept counts know statuses, not who may write a draft
  if (scope.kind !== 'descendants' || scope.node !== PUBLICATION_ID || s.clauses.length !== 1 || only === undefined || withDrafts(s.visibility)) return null
  if (only.field !== 'tags' || only.op !== 'eq' || only.group !== null || s.filter.object_types.length > 0 || s.filter.query !== '') return null
  return String(only.values[0])
}
