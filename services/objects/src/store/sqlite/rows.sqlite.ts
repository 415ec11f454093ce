import type Database from 'better-sqlite3'
import { SEARCHED_FIELDS, searchNeedle } from '../../core/text-search.js'
import type { ListFilter, Visibility } from '../../core/types.js'
import { readsEverything, withDrafts } from '../../core/visibility.js'
import { ftsPhrase, textCandidatesSql } from './text-index.sqlite.js'

export const groupsColumn = (groups: string[]): string | null => (groups.length === 0 ? null : JSON.stringify(groups))

const WINDOW_AND_GROUPS = `(@at IS NULL OR ((o.start_date IS NULL OR o.start_date <= @at) AND (o.end_date IS NULL OR o.end_date >= @at)))
  AND (@groups IS NULL OR o.read_groups IS NULL OR EXISTS (SELECT 1 FROM json_each(o.read_groups) g
       WHERE g.value IN (SELECT value FROM json_each(@groups))))`

/** Rows of `o` (objects) a visibility admits: status, publication window, read groups (`@groups` NULL: every group). */
export const VISIBLE = `o.status IN (SELECT value FROM json_each(@statuses))
  AND ${WINDOW_AND_GROUPS}`

/**
 * VISIBLE for a writer who asked for drafts (decisions §16): also the drafts whose write groups are empty
 * or shared with `@drafts` (NULL: every draft, an administrator). A statement text of its own, so the
 * published reads keep their plans.
 */
export const VISIBLE_WITH_DRAFTS = `(o.status IN (SELECT value FROM json_each(@statuses)) OR (o.status = 'draft'
    AND (@drafts IS NULL OR o.write_groups IS NULL OR EXISTS (SELECT 1 FROM json_each(o.write_groups) w
         WHERE w.value IN (SELECT value FROM json_each(@drafts))))))
  AND ${WINDOW_AND_GROUPS}`

/** The condition on `o` of a visibility (its parameters: visibilityParams). */
export const visibleSql = (vis: Visibility): string => (withDrafts(vis) ? VISIBLE_WITH_DRAFTS : VISIBLE)

const TYPES = '(@types IS NULL OR o.object_type IN (SELECT value FROM json_each(@types)))'
/** Whether one of `o`'s searched fields contains `needle` (a parameter, lower-cased), as text-search.ts says. */
export const containsSearched = (needle: string): string => `(${SEARCHED_FIELDS.map((f) => `ci_contains(o.${f}, ${needle})`).join(' OR ')})`
const CONTAINS = containsSearched('@query')

/**
 * Rows of `o` a list filter admits. A text query the trigram index can serve takes its candidates
 * from `objects_fts` and the text not indexed yet (a separate statement text, so the planner sees the
 * IN list); `ci_contains` decides on them. Other queries (short, or see ftsPhrase) check every row of the list.
 */
export function filtered (filter: ListFilter): string {
  return textFilterOf(filter).fts === null
    ? `${TYPES} AND (@query IS NULL OR ${CONTAINS})`
    : `${TYPES} AND o.id IN (${textCandidatesSql('@fts')}) AND ${CONTAINS}`
}

function textFilterOf (filter: ListFilter): { query: string | null, fts: string | null } {
  const query = searchNeedle(filter.query)
  return { query, fts: query === null ? null : ftsPhrase(query) }
}

export function visibilityParams (vis: Visibility) {
  const base = { statuses: JSON.stringify(vis.statuses), at: vis.at, groups: readsEverything(vis.groups) ? null : JSON.stringify(vis.groups) }
  // @drafts is a parameter of VISIBLE_WITH_DRAFTS only
  if (!withDrafts(vis)) return base
  return { ...base, drafts: vis.drafts?.everything === true ? null : JSON.stringify(vis.drafts?.groups ?? []) }
}

export function filterParams (filter: ListFilter) {
  return {
    types: filter.object_types.length === 0 ? null : JSON.stringify(filter.object_types),
    ...textFilterOf(filter),
  }
}

/**
 * The most statements kept prepared. The lists of decisions §15 compile a statement per query shape,
 * which a client chooses: past this many the oldest kept are let go (and prepared again when needed).
 */
export const MAX_PREPARED = 2_000

/** Keeps `stmt` under `sql`, letting the oldest go when `cache` is full. */
function keep (cache: Map<string, Database.Statement>, sql: string, stmt: Database.Statement): Database.Statement {
  if (cache.size >= MAX_PREPARED) cache.delete(cache.keys().next().value as string)
  cache.set(sql, stmt)
  return stmt
}

/** Prepared statements cached by their text; better-sqlite3 statements are reusable. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>()
  private readonly rawCache = new Map<string, Database.Statement>()
  constructor (readonly db: Database.Database) {}

  get (sql: string): Database.Statement {
    return this.cache.get(sql) ?? keep(this.cache, sql, this.db.prepare(sql))
  }

  /** The same statement in raw mode (rows as arrays); a statement's mode is sticky, so it is cached apart. */
  private raw (sql: string): Database.Statement {
    return this.rawCache.get(sql) ?? keep(this.rawCache, sql, this.db.prepare(sql).raw(true))
  }

  /** How many statements are kept prepared (both modes). */
  get prepared (): number {
    return this.cache.size + this.rawCache.size
  }

  /** Rows as arrays of the selected columns, in order. */
  rawAll<T extends unknown[] = unknown[]> (sql: string, params: object = {}): T[] {
    return this.raw(sql).all(params) as T[]
  }

  /** One row as an array, or undefined. */
  rawOne (sql: string, params: object = {}): unknown[] | undefined {
    return this.raw(sql).get(params) as unknown[] | undefined
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

/**
 * A column among `ids`, as a statement's condition and its values: one id compared at once, many
 * through a JSON list. For a single id (a create's answer, a read alone in its turn) the list's
 * json_each costs more than a small statement's own work (loadtest/README.md, "One id, no list").
 */
export function amongIds (ids: number[]): { among: string, params: { id: number } | { ids: string } } {
  return ids.length === 1 ? { among: ONE_ID, params: { id: ids[0] as number } } : { among: IDS_LIST, params: { ids: idsJson(ids) } }
}

/** amongIds' two conditions, for statements written ahead for each case */
export const ONE_ID = '= @id'
export const IDS_LIST = 'IN (SELECT value FROM json_each(@ids))'
