import type { Tx } from './schema.mongo.js'

/*
 * Lock documents for MongoDB's writes that link objects. A write that reads what a concurrent write
 * changes (an object's existence, an edge's ancestor list, the tree a cycle check walks) must write a
 * document that write writes too: snapshot isolation lets two transactions that only read each other's
 * documents both commit. Each object has STRIPES lock documents. A write that links `other` to an object
 * (a new edge below it, a relation to it) takes one of its stripes, chosen by `other`; a write that
 * changes what such a write read of an object — deletes it, or changes its ancestors (an edge into it
 * placed or removed, which rewrites every list below it) — takes all of its stripes. So:
 * - a new edge P→C takes a stripe of P and of every ancestor of P (its list was read from them), and
 *   all of C's unless C is new in the transaction (nothing else can see it yet);
 * - a relation X–Y takes a stripe of each end (all of one that is new are not needed);
 * - deleting X, or placing or removing an edge into X, takes all of X's.
 * Concurrent creates under one parent take different stripes of it (their ids differ, and one process's
 * are consecutive) and commit side by side; a delete, a move or a cycle-making placement meets them.
 */

/** Lock documents per object. */
export const STRIPES = 64

const stripeOf = (other: number): number => ((other % STRIPES) + STRIPES) % STRIPES

const lockId = (objectId: number, stripe: number): string => `${objectId}:${stripe}`

/** The stripe of each of `ids` that linking `other` to them takes. */
const linkLocks = (ids: readonly number[], other: number): string[] => ids.map((id) => lockId(id, stripeOf(other)))

/** Every stripe of `id` (none when it is new: `created`): what deleting it, or changing its ancestors, takes. */
export const wholeLocks = (id: number, created: ReadonlySet<number>): string[] =>
  (created.has(id) ? [] : Array.from({ length: STRIPES }, (_, s) => lockId(id, s)))

/** A new edge P→C, `ancestors` being P and every ancestor of P. */
export const edgeLocks = (ancestors: readonly number[], child: number, created: ReadonlySet<number>): string[] =>
  [...linkLocks(ancestors, child), ...wholeLocks(child, created)]

/** A new relation between `a` and `b`: a stripe of each end that is not new. */
export const relationLocks = (a: number, b: number, created: ReadonlySet<number>): string[] =>
  [...(created.has(a) ? [] : linkLocks([a], b)), ...(created.has(b) ? [] : linkLocks([b], a))]

/** Writes the lock documents (one bulk write), inside the transaction. */
export async function takeLocks (tx: Tx, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return
  await tx.c.locks.bulkWrite(unique.map((_id) => ({ updateOne: { filter: { _id }, update: { $inc: { v: 1 } }, upsert: true } })), { session: tx.session, ordered: false })
}
