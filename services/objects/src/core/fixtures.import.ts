import { DomainError } from '@content/platform'
import type { ObjectsStore } from './ports.js'
import { TargetGone, UniqueConflict } from './conflicts.js'
import { PUBLICATION_ID } from './publication.js'
import { checkPlanAgainstStore, planFixtures, planLookups, type FixturePlan } from './fixtures.plan.js'
import { objectRef } from './object-ref.js'

export interface ImportRequest {
  fixtures_json: string
  known_groups: string[]
  dry_run: boolean
}

function invalid (errors: string[]): DomainError {
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''
  return new DomainError('FIXTURES_INVALID', `fixtures invalid: ${errors[0]}${more}`, { errors })
}

/** What an import made: ref → id, and the id of each object with a ref in the file's order (the compact answer). */
export interface Imported {
  refs: Record<string, number>
  refIds: number[]
}

/**
 * Validates the whole file (every problem listed), checks it against the store, then writes it in
 * one transaction. A dry run stops after the checks and makes nothing.
 */
export async function importFixtures (store: ObjectsStore, request: ImportRequest, now: number): Promise<Imported> {
  const outcome = planFixtures(request.fixtures_json, request.known_groups, PUBLICATION_ID)
  if (!outcome.ok) throw invalid(outcome.errors)
  const lookups = planLookups(outcome.plan)
  const [typeOfId, takenNicknames, knownCategories] = await Promise.all([
    store.objects.typesOf(lookups.ids), store.objects.nicknamesTaken(lookups.nicknames), store.vocabulary.existingCategories(lookups.categories),
  ])
  const errors = checkPlanAgainstStore(outcome.plan, { typeOfId, takenNicknames, knownCategories })
  if (errors.length > 0) throw invalid(errors)
  if (request.dry_run) return { refs: {}, refIds: [] }
  try {
    const refs = await store.applyFixtures(outcome.plan, now)
    return { refs, refIds: idsInFileOrder(outcome.plan, refs) }
  } catch (err) {
    if (err instanceof UniqueConflict) throw invalid(['a nickname was taken while the file was being imported'])
    if (err instanceof TargetGone) throw invalid(['an object the file names was deleted while the file was being imported'])
    throw err
  }
}

function idsInFileOrder (plan: FixturePlan, refs: Record<string, number>): number[] {
  const ids: number[] = []
  for (const o of plan.objects) {
    if (o.ref === null) continue
    const id = refs[o.ref]
    if (id === undefined) throw new Error(`the store answered no id for ref ${o.ref}`)
    ids.push(id)
  }
  return ids
}

export async function setPermissions (store: ObjectsStore, objectId: string, read: string[], write: string[]): Promise<void> {
  const bad = [...read, ...write].filter((g) => g.trim() === '')
  if (bad.length > 0) throw new DomainError('VALIDATION_FAILED', 'group names must not be empty', { groups: 'must not be empty' })
  const record = await store.objects.get(objectRef(objectId))
  if (record === null) throw new DomainError('OBJECT_NOT_FOUND', `object "${objectId}" not found`)
  await store.objects.setPermissions(record.id, [...new Set(read)], [...new Set(write)])
}
