import { describe, expect, it } from 'vitest'
import type { ChangeDraft } from '../../src/core/change-events.js'
import {
  childRemoved, childrenSaved, linksWritten, objectCreated, objectDeleted, objectUpdated, parentPlaced, permissionsSet,
  relationRemoved, relationReplaced, relationSaved, relationsSaved,
} from '../../src/core/write-events.js'

const PUBLIC = { status: 'on' as const, read_groups: [], write_groups: [] }
const rel = (type: 'relation.created' | 'relation.updated' | 'relation.deleted', related_id: number): ChangeDraft =>
  ({ type, object_id: 5, relation: 'attach', related_id })
const child = (type: 'child.added' | 'child.updated' | 'child.removed', object_id: number): ChangeDraft =>
  ({ type, object_id, parent_id: 2 })

describe('the change events of a write, from what it did', () => {
  it.each<[string, ChangeDraft[], ChangeDraft[]]>([
    ['a create', objectCreated(5), [{ type: 'object.created', object_id: 5 }]],
    ['an update', objectUpdated(5, false, null), [{ type: 'object.updated', object_id: 5 }]],
    ['an update of a public object', objectUpdated(5, false, PUBLIC), [{ type: 'object.updated', object_id: 5, before: PUBLIC }]],
    ['an update that attached an upload', objectUpdated(5, true, PUBLIC), [{ type: 'object.updated', object_id: 5, before: PUBLIC }, { type: 'file.changed', object_id: 5 }]],
    ['a delete', objectDeleted(5), [{ type: 'object.deleted', object_id: 5 }]],
    ['permissions of an object', permissionsSet(5, true, null), [{ type: 'permissions.changed', object_id: 5 }]],
    ['permissions of a public object', permissionsSet(5, true, PUBLIC), [{ type: 'permissions.changed', object_id: 5, before: PUBLIC }]],
    ['permissions of no object', permissionsSet(5, false, null), []],
    ['a new parent of an object write', parentPlaced(5, 2, true), [{ type: 'child.added', object_id: 5, parent_id: 2 }]],
    ['a parent the object had', parentPlaced(5, 2, false), []],
    ['a new relation', relationSaved(5, 'attach', 7, true), [rel('relation.created', 7)]],
    ['a relation that was there', relationSaved(5, 'attach', 7, false), [rel('relation.updated', 7)]],
    ['a removed child', childRemoved(2, 5, true), [child('child.removed', 5)]],
    ['a child that was not there', childRemoved(2, 5, false), []],
    ['a replaced relation', relationReplaced(5, 'attach', 7, true), [rel('relation.updated', 7)]],
    ['a relation that was not there to replace', relationReplaced(5, 'attach', 7, false), []],
    ['a removed relation', relationRemoved(5, 'attach', 7, true), [rel('relation.deleted', 7)]],
    ['a relation that was not there to remove', relationRemoved(5, 'attach', 7, false), []],
  ])('when %s, then its events are these', (_name, drafts, expected) => {
    expect(drafts).toEqual(expected)
  })

  it('when children are saved, then each row is added or, when the edge was there, updated, in the order saved', () => {
    expect(childrenSaved(2, [
      { child_id: 9, priority: 1, created: true }, { child_id: 4, priority: 3, created: false }, { child_id: 6, priority: 2, created: true },
    ])).toEqual([child('child.added', 9), child('child.updated', 4), child('child.added', 6)])
    expect(childrenSaved(2, [])).toEqual([])
  })

  it('when relations are saved, then each row is created or, when the pair was there, updated, in the order saved', () => {
    expect(relationsSaved(5, 'attach', [
      { related_id: 8, priority: 1, params: null, created: false }, { related_id: 7, priority: 2, params: '{}', created: true },
    ])).toEqual([rel('relation.updated', 8), rel('relation.created', 7)])
  })

  it('when an object write placed and related the object, then the new edges come first, then every relation, each in its order', () => {
    expect(linksWritten(5, {
      parents: [{ parent_id: 3, created: true }, { parent_id: 2, created: false }, { parent_id: 1, created: true }],
      relations: [{ name: 'attach', related_id: 8, created: true }, { name: 'seealso', related_id: 7, created: false }],
    })).toEqual([
      { type: 'child.added', object_id: 5, parent_id: 3 }, { type: 'child.added', object_id: 5, parent_id: 1 },
      rel('relation.created', 8), { type: 'relation.updated', object_id: 5, relation: 'seealso', related_id: 7 },
    ])
    expect(linksWritten(5, { parents: [], relations: [] })).toEqual([])
  })
})
