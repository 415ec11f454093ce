import { DomainError } from '@content/platform'
import { savedObject } from './objects.writer.js'
import { pageWindow, pagingOf, type Paging } from './paging.js'
import type { RevisionRecord } from './revisions.js'
import type { Caller, ObjectView } from './types.js'
import { windowProblem } from './object-rules.js'
import { invalid, writableObject, type WriteDeps } from './write-context.js'

/*
 * The revisions of an object (decisions §16): reading them needs read and write rights on it (anonymous
 * 401, others 403), as writing it does; a restore is an ordinary update.
 */

/** GET /objects/{id}/revisions: newest first, paged. */
export async function listRevisions (deps: WriteDeps, caller: Caller, objectId: string, page: { page?: number, page_size?: number } | null | undefined): Promise<{ revisions: RevisionRecord[], paging: Paging }> {
  const record = await writableObject(deps, caller, objectId)
  const window = pageWindow(page)
  const { items, total } = await deps.reads.store.revisions.list(record.id, window.offset, window.limit)
  return { revisions: items, paging: pagingOf(window, total, items.length) }
}

async function revisionOf (deps: WriteDeps, id: number, n: number): Promise<RevisionRecord> {
  const revision = Number.isSafeInteger(n) && n > 0 ? await deps.reads.store.revisions.get(id, n) : null
  if (revision === null) throw new DomainError('REVISION_NOT_FOUND', `object ${id} has no revision ${n}`)
  return revision
}

/** GET /objects/{id}/revisions/{n} */
export async function getRevision (deps: WriteDeps, caller: Caller, objectId: string, n: number): Promise<RevisionRecord> {
  const record = await writableObject(deps, caller, objectId)
  return revisionOf(deps, record.id, n)
}

/**
 * POST /objects/{id}/revisions/{n}/restore: every own field back to revision n's value (one set later
 * goes back to its old value or null), written as an update: its events, its new revision.
 */
export async function restoreRevision (deps: WriteDeps, caller: Caller, objectId: string, n: number): Promise<ObjectView> {
  const record = await writableObject(deps, caller, objectId)
  const { data } = await revisionOf(deps, record.id, n)
  const window = windowProblem(data.start_date, data.end_date)
  if (window !== null) throw invalid({ end_date: window })
  const updated = await deps.reads.store.objects.update(record.id, { columns: { ...data }, user_id: caller.user_id, extras: {} }, deps.now())
  if (!updated) throw new DomainError('OBJECT_NOT_FOUND', `object "${objectId}" not found`)
  return (await savedObject(deps, caller, record.id, false)).object
}
