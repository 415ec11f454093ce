import { describe, expect, it } from 'vitest'
import { TargetGone, UniqueConflict } from '../../src/core/conflicts.js'
import { importFixtures } from '../../src/core/fixtures.import.js'
import type { ObjectsStore } from '../../src/core/ports.js'

/** A store where every object named exists and every name is free, whose write fails with `failure`. */
const failingWith = (failure: Error) => ({
  objects: {
    typesOf: async (ids: number[]) => new Map(ids.map((id) => [id, 'section'])),
    nicknamesTaken: async () => [],
  },
  vocabulary: { existingCategories: async () => [] },
  applyFixtures: async () => { throw failure },
}) as unknown as ObjectsStore

const FILE = JSON.stringify({ objects: [{ object_type: 'document', title: 'D', parents: [5] }] })

describe('importFixtures', () => {
  it.each([
    ['a nickname taken', new UniqueConflict(), 'a nickname was taken while the file was being imported'],
    ['an object named deleted', new TargetGone(), 'an object the file names was deleted while the file was being imported'],
  ])('when %s by a concurrent write makes the store refuse the plan, then the file is invalid and says why', async (_case, failure, reason) => {
    await expect(importFixtures(failingWith(failure), { fixtures_json: FILE, known_groups: [], dry_run: false }, 0))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'FIXTURES_INVALID', details: { errors: [reason] } })
  })
})
