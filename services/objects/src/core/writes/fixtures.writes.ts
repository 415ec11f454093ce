import { TargetGone } from '../conflicts.js'
import { planLookups, type FixturePlan, type PlannedObject, type TargetRef } from '../fixtures.plan.js'
import type { StoreAdapter } from '../ports.js'
import { importTxOf, txOf, type ImportTx, type Steps, type WriteSettings } from '../unit-of-work.js'
import { objectCreated, parentPlaced, relationSaved } from '../write-events.js'
import { removeObject } from './objects.writes.js'

/*
 * A fixtures import (ObjectsStore.applyFixtures), composed once: the named objects checked to be there
 * still, the vocabulary, every object inserted (object.created each, in file order), then each placed
 * under its parents (child.added), then its relations saved (relation.*) — the rows and events of
 * inserting, placing and relating each one by one, which the adapter may write in bulk (ImportSteps).
 */

/** Each planned object's id, in plan order, and ref → id. */
interface Made { ids: number[], refs: Record<string, number> }

const resolverOf = (made: Made) => (t: TargetRef): number => {
  if ('id' in t) return t.id
  const id = made.refs[t.ref]
  if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
  return id
}

/** The existing objects the plan names must be there still (under the write's lock or snapshot); then the vocabulary. */
function * prepare (tx: ImportTx, plan: FixturePlan): Steps<void> {
  if (!(yield * tx.allExist(planLookups(plan).ids))) throw new TargetGone()
  for (const c of plan.categories) yield * tx.saveVocabulary('categories', c)
  for (const t of plan.tags) yield * tx.saveVocabulary('tags', t)
}

function * insert (tx: ImportTx, objects: PlannedObject[], now: number): Steps<number[]> {
  const ids = yield * tx.insertNewObjects(objects.map((o) => o.write), now)
  yield * tx.appendChanges(ids.flatMap(objectCreated))
  return ids
}

/** Places each object once under each distinct parent (`@publication` and its id both listed: once). */
function * place (tx: ImportTx, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number): Steps<void> {
  for (const [i, o] of objects.entries()) {
    const child = ids[i] as number
    const placed = new Set<number>()
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      if (placed.has(parentId)) continue
      placed.add(parentId)
      yield * tx.placeNewChild(parentId, child)
      yield * tx.appendChanges(parentPlaced(child, parentId, true))
    }
  }
}

/**
 * Relates each object as its file lists: a checked plan relates no pair twice, except in the list of an
 * object without a ref (nothing else can name it), where a pair listed again is saved again.
 */
function * relate (tx: ImportTx, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number): Steps<void> {
  for (const [i, o] of objects.entries()) {
    const id = ids[i] as number
    const saved = new Set<string>()
    for (const r of o.relations) {
      const related = resolve(r.related)
      const pair = `${r.name}\u0000${related}`
      if (saved.has(pair)) {
        const again = yield * tx.saveRelation(id, r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
        yield * tx.appendChanges(relationSaved(id, r.name, related, again.created))
        continue
      }
      saved.add(pair)
      yield * tx.relateNew(id, r.name, r.inverse, related, r.priority, r.params)
      yield * tx.appendChanges(relationSaved(id, r.name, related, true))
    }
  }
}

function * importWhole (tx: ImportTx, plan: FixturePlan, now: number): Steps<Record<string, number>> {
  yield * prepare(tx, plan)
  const made: Made = { ids: yield * insert(tx, plan.objects, now), refs: {} }
  plan.objects.forEach((o, i) => { if (o.ref !== null) made.refs[o.ref] = made.ids[i] as number })
  const resolve = resolverOf(made)
  yield * place(tx, plan.objects, made.ids, resolve)
  yield * relate(tx, plan.objects, made.ids, resolve)
  return made.refs
}

/**
 * Writes a checked plan: in one transaction, or, where the adapter bounds transactions (MongoDB's are
 * limited in time), in parts of `importLimit` objects — inserted, then placed, then related, part after
 * part. A bounded import that fails partway is undone: the objects it inserted are removed again, each
 * recording object.deleted after its object.created. Answers ref → id.
 */
export async function applyFixtures (adapter: StoreAdapter, settings: WriteSettings, plan: FixturePlan, now: number): Promise<Record<string, number>> {
  const limit = adapter.importLimit
  if (limit === null || plan.objects.length <= limit) return adapter.importInBulk((steps) => importWhole(importTxOf(steps, settings), plan, now))
  const slices = Array.from({ length: Math.ceil(plan.objects.length / limit) }, (_, k) => k * limit)
  const made: Made = { ids: [], refs: {} }
  const run = (work: (tx: ImportTx) => Steps<unknown>) => adapter.importInBulk((steps) => work(importTxOf(steps, settings)))
  try {
    await run((tx) => prepare(tx, plan))
    for (const at of slices) {
      // the part's ids are kept once it committed: a retried part starts from nothing
      const objects = plan.objects.slice(at, at + limit)
      const ids = await adapter.importInBulk((steps) => insert(importTxOf(steps, settings), objects, now))
      made.ids.push(...ids)
      objects.forEach((o, i) => { if (o.ref !== null) made.refs[o.ref] = ids[i] as number })
    }
    const resolve = resolverOf(made)
    for (const at of slices) await run((tx) => place(tx, plan.objects.slice(at, at + limit), made.ids.slice(at, at + limit), resolve))
    for (const at of slices) await run((tx) => relate(tx, plan.objects.slice(at, at + limit), made.ids.slice(at, at + limit), resolve))
    return made.refs
  } catch (err) {
    await undoImport(adapter, settings, made.ids, limit)
    throw err
  }
}

/** Removes what a failed bounded import inserted, in parts of `limit` objects. */
async function undoImport (adapter: StoreAdapter, settings: WriteSettings, ids: number[], limit: number): Promise<void> {
  for (let at = 0; at < ids.length; at += limit) {
    const part = ids.slice(at, at + limit)
    await adapter.write(function * (steps) {
      const tx = txOf(steps, settings)
      for (const id of part) yield * removeObject(tx, id)
    })
  }
}
