import type { ChangeDraft } from '../change-events.js'
import type { RelationItemWrite } from '../ports.js'
import { runSteps, type Step, type Steps } from '../unit-of-work.js'
import type { ImportSteps, NewObject, WriteSteps } from '../write-steps.js'

/**
 * A fixtures import's steps taken from the write steps of any store, one row at a time: what an adapter
 * without a bulk path runs an import with, and the reference its bulk path must equal. Each answers at
 * once when the write steps do (runSteps), a promise when they do not.
 */
export class RowByRowImport implements ImportSteps {
  constructor (private readonly steps: WriteSteps) {}

  allExist (ids: number[]): Step<boolean> {
    const { steps } = this
    return runSteps((function * (): Steps<boolean> {
      for (const id of ids) if (!(yield steps.exists(id))) return false
      return true
    })())
  }

  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }): Step<void> {
    return this.steps.saveVocabulary(kind, item)
  }

  insertNewObjects (objects: NewObject[], now: number): Step<number[]> {
    const { steps } = this
    return runSteps((function * (): Steps<number[]> {
      const ids: number[] = []
      for (const o of objects) ids.push((yield steps.insertObject(o, now)) as number)
      return ids
    })())
  }

  placeNewChild (parentId: number, childId: number): Step<void> {
    return dropAnswer(this.steps.placeChild(parentId, childId, null))
  }

  relateNew (id: number, name: string, inverse: string, related: number, priority: number | null, params: string | null): Step<void> {
    return dropAnswer(this.steps.saveRelation(id, name, inverse, { related_id: related, priority, params }))
  }

  saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return this.steps.saveRelation(id, name, inverse, item) }
  appendChanges (drafts: readonly ChangeDraft[]) { return this.steps.appendChanges(drafts) }
}

/** A step's answer dropped: nothing at once, or a promise of nothing. */
function dropAnswer (step: Step<unknown>): Step<void> {
  return runSteps((function * (): Steps<void> { yield step })())
}
