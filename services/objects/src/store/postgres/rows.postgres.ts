import { searchNeedle } from '../../core/text-search.js'
import { SEARCHED_FIELDS } from '../../core/text-search.js'
import type { ListFilter, Visibility } from '../../core/types.js'
import { readsEverything, withDrafts } from '../../core/visibility.js'
import { lowered } from './schema.postgres.js'

/** A group list as its column holds it: NULL for none (not protected, or writer groups decide). */
export const groupsColumn = (groups: string[]): string[] | null => (groups.length === 0 ? null : groups)

const WINDOW_AND_GROUPS = `(@at::bigint IS NULL OR ((o.start_date IS NULL OR o.start_date <= @at) AND (o.end_date IS NULL OR o.end_date >= @at)))
  AND (@groups::text[] IS NULL OR o.read_groups IS NULL OR o.read_groups && @groups)`

/** Rows of `o` (objects) a visibility admits: status, publication window, read groups (`@groups` NULL: every group). */
export const VISIBLE = `o.status = ANY(@statuses::text[]) AND ${WINDOW_AND_GROUPS}`

/** VISIBLE for a writer who asked for drafts (decisions §16): also the drafts within `@drafts` (NULL: every draft). */
export const VISIBLE_WITH_DRAFTS = `(o.status = ANY(@statuses::text[]) OR (o.status = 'draft'
    AND (@drafts::text[] IS NULL OR o.write_groups IS NULL OR o.write_groups && @drafts)))
  AND ${WINDOW_AND_GROUPS}`

export const visibleSql = (vis: Visibility): string => (withDrafts(vis) ? VISIBLE_WITH_DRAFTS : VISIBLE)

export function visibilityParams (vis: Visibility): Record<string, unknown> {
  const base = { statuses: vis.statuses, at: vis.at, groups: readsEverything(vis.groups) ? null : vis.groups }
  if (!withDrafts(vis)) return base
  return { ...base, drafts: vis.drafts?.everything === true ? null : vis.drafts?.groups ?? [] }
}

/** A LIKE pattern that matches `text` literally (`\` is LIKE's escape). */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The condition that the searched texts of `o` hold `pattern` (a LIKE parameter): served by their trigram indexes. */
export const textMatch = (pattern: string, fields: readonly string[] = SEARCHED_FIELDS): string =>
  `(${fields.map((f) => `${lowered(`o.${f}`)} LIKE ${pattern}`).join(' OR ')})`

/**
 * Rows of `o` a list filter admits. A text query gets a statement text of its own, so that the planner
 * sees the pattern's condition and the trigram indexes serve it; the LIKE is also the exact check.
 */
export function filtered (filter: ListFilter): string {
  const types = '(@types::text[] IS NULL OR o.object_type = ANY(@types::text[]))'
  return searchNeedle(filter.query) === null ? types : `${types} AND ${textMatch('@pattern')}`
}

export function filterParams (filter: ListFilter): Record<string, unknown> {
  const needle = searchNeedle(filter.query)
  return {
    types: filter.object_types.length === 0 ? null : filter.object_types,
    ...(needle === null ? {} : { pattern: `%${likeLiteral(needle)}%` }),
  }
}
