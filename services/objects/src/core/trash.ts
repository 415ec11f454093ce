import { DomainError } from '@content/platform'
import { bodyData } from './write-body.js'
import { buildViews } from './object-view.js'
import { isTreeNode } from './object-types.js'
import { pageWindow, pagingOf, type Paging } from './paging.js'
import type { TrashEntry, TrashedObject } from './ports.js'
import { PUBLICATION_ID } from './publication.js'
import type { Caller, ObjectView } from './types.js'
import { canRead } from './visibility.js'
import { writeAccess } from './write-access.js'
import { invalid, onTree, requireCaller, requireWriteAccess, writableObject, type WriteDeps } from './write-context.js'
import { savedObject } from './objects.writer.js'

/** Decisions §16: DELETE /objects/{id} moves the object to the trash (no live child may sit under it). */
export async function trashObject (deps: WriteDeps, caller: Caller, objectId: string): Promise<void> {
  const record = await writableObject(deps, caller, objectId)
  if (record.id === PUBLICATION_ID) throw invalid({ object_id: 'the publication cannot be deleted' })
  // trashed children left the tree with their rows: they do not count
  if (await deps.reads.store.tree.hasChildren(record.id)) throw stillHasChildren(record.id)
  const put = await deps.reads.store.trash.put(record.id, caller.user_id, deps.now())
  if (put === 'absent') throw notInStore(objectId)
  if (put === 'has children') throw stillHasChildren(record.id)
}

const stillHasChildren = (id: number) => invalid({ object_id: `object ${id} still has children` })

const notInStore = (objectId: string) => new DomainError('OBJECT_NOT_FOUND', `object "${objectId}" not found`)
const notInTrash = (objectId: string) => new DomainError('OBJECT_NOT_FOUND', `object "${objectId}" is not in the trash`)

/** Who may see and handle a trashed object: a writer of it who may read it (administrators always). */
const handles = (deps: WriteDeps, caller: Caller, entry: TrashEntry) =>
  writeAccess(caller, deps.writerGroups, entry) === 'ok' && canRead(entry, caller.groups)

export interface TrashedView { object: ObjectView, deleted: number, user_id: number }

/** GET /trash: newest first, only what the caller may write; anonymous 401, non-writers 403. */
export async function listTrash (deps: WriteDeps, caller: Caller, page: { page?: number, page_size?: number } | null | undefined): Promise<{ items: TrashedView[], paging: Paging }> {
  requireCaller(caller)
  requireWriteAccess(deps, caller, null)
  const window = pageWindow(page)
  const visible = (await deps.reads.store.trash.list()).filter((e) => handles(deps, caller, e))
  const ids = visible.slice(window.offset, window.offset + window.limit).map((e) => e.id)
  const byId = new Map((await deps.reads.store.trash.get(ids)).map((t) => [t.id, t]))
  const trashed = ids.flatMap((id) => byId.get(id) ?? [])
  // as it was when trashed: no relation or child counts (a trashed object has neither)
  const views = buildViews(trashed.map((t) => t.record), {
    details: new Map(trashed.map((t) => [t.id, t.details])), relationCounts: new Map(), childCounts: new Map(),
  })
  const items = views.map((object, i) => ({ object, deleted: trashed[i]?.deleted ?? 0, user_id: trashed[i]?.user_id ?? 0 }))
  return { items, paging: pagingOf(window, visible.length, items.length) }
}

/**
 * The trashed object a trash path names, if this caller may handle it: 401, 403 for a caller in no writing
 * group (as GET /trash, before the id is looked at), then 404, also for an object in the trash this
 * caller may not handle: it cannot list it, so the answer must not tell it is there.
 */
async function trashedOf (deps: WriteDeps, caller: Caller, objectId: string): Promise<TrashedObject> {
  requireCaller(caller)
  requireWriteAccess(deps, caller, null)
  const id = /^[0-9]{1,16}$/.test(objectId) ? Number(objectId) : Number.NaN
  const [entry] = Number.isSafeInteger(id) ? await deps.reads.store.trash.get([id]) : []
  if (entry === undefined || !handles(deps, caller, entry)) throw notInTrash(objectId)
  return entry
}

/**
 * `data.parents` of a restore body, when there is a body: a list of ids. Any other member of `data` is
 * refused, as in every write body (`TrashRestoreBody`): a misspelt `parent` would otherwise restore the
 * object under its old parents, or answer 409 as if no parents had been sent.
 */
function parentsOfBody (bodyJson: string | undefined): number[] | null {
  if (bodyJson === undefined || bodyJson.trim() === '') return null
  const data = bodyData(bodyJson)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw invalid({ data: 'must be an object' })
  const unknown = Object.keys(data).filter((key) => key !== 'parents')
  if (unknown.length > 0) throw invalid(Object.fromEntries(unknown.map((key) => [key, 'is not a known field'])))
  const parents = (data as { parents?: unknown }).parents
  if (parents === undefined || parents === null) return null
  if (!Array.isArray(parents) || parents.length === 0 || !parents.every((p) => typeof p === 'number' && Number.isSafeInteger(p) && p > 0)) {
    throw invalid({ parents: 'must be a non-empty list of object ids' })
  }
  return [...new Set(parents as number[])]
}

/**
 * POST /trash/{id}/restore: the object back with its fields, permissions, places under its parents and
 * relations whose other end exists. 409 when it had parents and none exists, unless `data.parents` names new ones.
 */
export async function restoreTrashed (deps: WriteDeps, caller: Caller, objectId: string, bodyJson: string | undefined): Promise<ObjectView> {
  const entry = await trashedOf(deps, caller, objectId)
  const given = parentsOfBody(bodyJson)
  const { store } = deps.reads
  if (given !== null) {
    const records = new Map((await store.objects.listByIds(given)).map((r) => [r.id, r]))
    for (const p of given) {
      const parent = records.get(p)
      if (parent === undefined || !isTreeNode(parent.object_type) || !canRead(parent, caller.groups) || !(await onTree(deps, p))) {
        throw invalid({ parents: `object ${p} is not an area or section on the publication tree` })
      }
    }
  } else if (entry.parent_ids.length > 0) {
    const present = new Set((await store.objects.listByIds(entry.parent_ids)).map((r) => r.id))
    if (!entry.parent_ids.some((p) => present.has(p))) {
      throw new DomainError('PARENT_GONE', `the parents of object ${entry.id} are gone: restore one first, or send data.parents`,
        { parents: entry.parent_ids })
    }
  }
  if (await store.trash.restore(entry.id, given) === 'absent') throw notInTrash(objectId)
  return (await savedObject(deps, caller, entry.id, false)).object
}

/** DELETE /trash/{id}: gone for good; its file is released once nothing else uses it (decisions §12). */
export async function purgeTrashed (deps: WriteDeps, caller: Caller, objectId: string): Promise<void> {
  const entry = await trashedOf(deps, caller, objectId)
  if (await deps.reads.store.trash.purge(entry.id) === 'absent') throw notInTrash(objectId)
}
