/** Conflicts a store adapter raises when a concurrent write got there first; drivers' own error codes stay inside the adapters. */

/**
 * What an adapter raises when a write would break a unique index — in practice a nickname taken by a
 * concurrent write after the core checked it. Drivers' own error codes stay inside the adapters.
 */
export class UniqueConflict extends Error {
  constructor () {
    super('a unique value was taken by a concurrent write')
    this.name = 'UniqueConflict'
  }
}

/**
 * What an adapter raises when an object a write names (a parent, a related object, a bulk write's
 * reference) was deleted by a concurrent write after the core checked it: the transaction is rolled
 * back, nothing is written.
 */
export class TargetGone extends Error {
  constructor () {
    super('an object the write names was deleted by a concurrent write')
    this.name = 'TargetGone'
  }
}

/**
 * What an adapter raises when a write's upload claim finds no unexpired upload row (it was used by a
 * concurrent write, or expired meanwhile): the transaction is rolled back, nothing is written.
 */
export class UploadClaimConflict extends Error {
  constructor () {
    super('the pending upload was used or expired before the write committed')
    this.name = 'UploadClaimConflict'
  }
}

/**
 * What an adapter raises when a write's idempotency key is already recorded and live (a concurrent
 * request with the same key committed first): the transaction is rolled back, nothing is written.
 */
export class IdempotencyKeyTaken extends Error {
  constructor () {
    super('the idempotency key was recorded by a concurrent write')
    this.name = 'IdempotencyKeyTaken'
  }
}

/**
 * What an adapter raises when a placement checked by core became impossible before the write ran (a
 * concurrent move made the child an ancestor of the parent, or gave a section another parent): the
 * transaction is rolled back, nothing is written.
 */
export class PlacementConflict extends Error {
  constructor () {
    super('a concurrent write changed the tree so that the placement is no longer possible')
    this.name = 'PlacementConflict'
  }
}
