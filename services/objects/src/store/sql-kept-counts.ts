import { PUBLICATION_ID } from '../core/publication.js'

/*
 * What both SQL stores' kept counts (kept-counts.sqlite.ts, tag-counts.sqlite.ts, kept-counts.postgres.ts)
 * count, and where: the triggers and tables are each store's own.
 */

/** A count kept over an edge table: a node's children (tree) or descendants (closure). */
export interface Kept {
  kind: 'child' | 'descendant'
  edges: 'tree' | 'closure'
  node: 'parent_id' | 'ancestor_id'
  object: 'object_id' | 'descendant_id'
  /** whether the edge row `e` is counted (closure's reflexive rows are not) */
  counted: (e: string) => string
}
export const CHILDREN: Kept = { kind: 'child', edges: 'tree', node: 'parent_id', object: 'object_id', counted: () => 'true' }
export const DESCENDANTS: Kept = { kind: 'descendant', edges: 'closure', node: 'ancestor_id', object: 'descendant_id', counted: (e) => `${e}.ancestor_id <> ${e}.descendant_id` }
export const KEPT = [CHILDREN, DESCENDANTS]

/**
 * Whether the object row `o` is counted: without a publication window and without read groups it is
 * visible exactly when its status is. The others are listed apart and checked against the reader.
 */
export const unrestricted = (o: string): string => `(${o}.start_date IS NULL AND ${o}.end_date IS NULL AND ${o}.read_groups IS NULL)`

/** Whether the object `id` is below the publication (a tag's objects are counted there only). */
export const onTree = (id: string): string => `(${id} <> ${PUBLICATION_ID} AND EXISTS (SELECT 1 FROM closure WHERE ancestor_id = ${PUBLICATION_ID} AND descendant_id = ${id}))`
