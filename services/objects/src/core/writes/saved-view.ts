import { buildViews } from '../object-view.js'
import { isTreeNode } from '../object-types.js'
import type { ObjectView, Visibility } from '../types.js'
import type { Steps, Tx } from '../unit-of-work.js'
import type { ObjectSaved } from './objects.writes.js'

/**
 * The object as a read with `vis` would answer it, read inside the write that saved it: the state that
 * write left, whatever writes commit beside it (the view of read-context.ts's viewsOf, from the
 * transaction's own steps). `saved.record`, when the save read it as it left it, is not read again.
 * Null when it is not there.
 */
export function * savedView (tx: Tx, saved: ObjectSaved, vis: Visibility): Steps<ObjectView | null> {
  const { id } = saved
  const record = saved.record ?? (yield * tx.record(id))
  if (record === null) return null
  const details = yield * tx.details([id])
  const relationCounts = yield * tx.relationCounts([id], vis)
  const childCounts = isTreeNode(record.object_type) ? yield * tx.childCounts([id], vis) : new Map()
  return buildViews([record], { details, relationCounts, childCounts })[0] ?? null
}
