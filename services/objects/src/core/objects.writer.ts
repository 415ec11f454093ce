import { DomainError, present } from '@content/platform'
import { PlacementConflict, UniqueConflict, UploadClaimConflict } from './conflicts.js'
import type { IdempotencyClaim } from './idempotency.js'
import { checkPlacement, checkRelated, placementChanged, relationNameFor } from './links.writer.js'
import { DEFAULT_COLUMNS, type ObjectLinks, type ObjectPatch, type ObjectWrite, type WritableColumns } from './object-input.js'
import { dateItemsProblem, parentsProblem, windowProblem } from './object-rules.js'
import { aType, isTreeNode, type ObjectTypeName } from './object-types.js'
import { callerVisibility, viewsOf } from './read-context.js'
import { parseSaveInput, type SaveInput } from './save-input.js'
import { STATUSES, type Caller, type ObjectRecord, type ObjectView, type Status } from './types.js'
import type { Steps, Tx } from './unit-of-work.js'
import { UNUSABLE_TOKEN, uploadToAttach, uploadTokenInvalid } from './upload-token.js'
import { canRead } from './visibility.js'
import { bodyData } from './write-body.js'
import { invalid, onTree, requireCaller, requireWriteAccess, writableObject, writableType, type WriteDeps } from './write-context.js'
import { createObject, updateObject, type ObjectSaved } from './writes/objects.writes.js'
import { savedView } from './writes/saved-view.js'

const nicknameTaken = (nickname: string | undefined) => new DomainError('NICKNAME_TAKEN', nickname === undefined
  ? 'the generated nickname was taken by a concurrent write; try again'
  : `nickname "${nickname}" is already taken`)

/**
 * What the core checked can change before the write commits: a nickname checked free can be taken, an
 * upload checked unused can be used, by a concurrent write. The store refuses the write; this names why.
 */
async function guardWrite<T> (nickname: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (err) {
    if (err instanceof UniqueConflict) throw nicknameTaken(nickname)
    if (err instanceof UploadClaimConflict) throw uploadTokenInvalid(UNUSABLE_TOKEN)
    if (err instanceof PlacementConflict) throw placementChanged('parents')
    throw err
  }
}

/**
 * POST /objects: create (no id) or update (id). Answers the object as a read would, and whether it was
 * created. `idempotency` is recorded in the write's transaction.
 */
export async function saveObject (deps: WriteDeps, caller: Caller, bodyJson: string | undefined, writableTypes: string[],
  idempotency?: IdempotencyClaim, status?: Status): Promise<SavedObject> {
  requireCaller(caller)
  const data = bodyData(bodyJson)
  const parsed = parseSaveInput(data)
  if (!parsed.ok) {
    await requireObjectLevel(deps, caller, data)
    throw invalid(parsed.details)
  }
  const input = parsed.value
  const object = input.id === null ? await create(deps, caller, input, writableTypes, idempotency, status) : await update(deps, caller, input, writableTypes, idempotency, status)
  return { object, created: input.id === null }
}

/**
 * Decisions §16: the status a write asks for with `?status=` (the gateway checked it; checked again, as
 * anything from another process): a create without one is `on`, an update without one keeps its status.
 */
export function writeStatusOf (status: string | undefined): Status | undefined {
  if (status === undefined || status === '') return undefined
  if (!(STATUSES as readonly string[]).includes(status)) throw invalid({ status: `takes one of ${STATUSES.join(', ')}` })
  return status as Status
}

export interface SavedObject { object: ObjectView, created: boolean }

/** The answer to a save of object `id` given later (a replay): the object as the caller reads it now. */
export async function savedObject (deps: WriteDeps, caller: Caller, id: number, created: boolean): Promise<SavedObject> {
  const [object] = await viewsOf(deps.reads, [id], callerVisibility(deps.reads, caller))
  if (object === undefined) throw new DomainError('OBJECT_NOT_FOUND', `object ${id} not found`)
  return { object, created }
}

/**
 * Runs an object write and reads its answer in the same transaction: the object as this write left it,
 * however many writes of it commit beside it. Null when the write found no object to write.
 */
function writeAndView (deps: WriteDeps, caller: Caller, nickname: string | undefined, write: (tx: Tx) => Steps<ObjectSaved | null>): Promise<ObjectView | null> {
  const vis = callerVisibility(deps.reads, caller)
  return guardWrite(nickname, () => deps.reads.store.write(function * (tx) {
    const saved = yield * write(tx)
    return saved === null ? null : yield * savedView(tx, saved, vis)
  }))
}

/**
 * Decisions §2: 403 (no writing group) and, for an update, 404/403 of the named object outrank a 400
 * for the body. Only a well-formed id is looked up; a malformed one is the body's problem.
 */
async function requireObjectLevel (deps: WriteDeps, caller: Caller, data: unknown): Promise<void> {
  requireWriteAccess(deps, caller, null)
  const id = typeof data === 'object' && data !== null ? (data as { id?: unknown }).id : undefined
  const wellFormed = (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) || (typeof id === 'string' && id !== '')
  if (wellFormed) await writableObject(deps, caller, String(id))
}

async function create (deps: WriteDeps, caller: Caller, input: SaveInput, writableTypes: string[], idempotency?: IdempotencyClaim, status?: Status): Promise<ObjectView> {
  requireWriteAccess(deps, caller, null)
  const type = writableType(input.object_type, writableTypes)
  checkWindow(input.columns)
  const parents = parentsProblem(type, (input.parents ?? []).length)
  if (parents !== null) throw invalid({ parents })
  const subject = { id: 0, object_type: type }
  const links = await checkLinks(deps, caller, subject, input)
  await checkExtras(deps, type, input)
  if (input.nickname !== undefined && (await deps.reads.store.objects.nicknamesTaken([input.nickname])).length > 0) throw nicknameTaken(input.nickname)
  const now = deps.now()
  const upload = input.upload_token === null ? null : await uploadToAttach(deps.reads.store, caller, type, input.upload_token, now)
  const write: ObjectWrite = {
    object_type: type, nickname: input.nickname ?? null, status: status ?? 'on',
    columns: { ...DEFAULT_COLUMNS, ...input.columns, ...(upload ? { file: upload.file } : {}) },
    read_groups: [], write_groups: [], user_id: caller.user_id, extras: input.extras, links, claim: upload?.claim, idempotency,
  }
  const object = await writeAndView(deps, caller, input.nickname, (tx) => createObject(tx, write, now))
  return present(object, 'the created object')
}

async function update (deps: WriteDeps, caller: Caller, input: SaveInput, writableTypes: string[], idempotency?: IdempotencyClaim, status?: Status): Promise<ObjectView> {
  const record = await writableObject(deps, caller, present(input.id, 'the id of the object to update'))
  // spec 4.10.5: only writable types can be written with POST /objects, updates included
  writableType(record.object_type, writableTypes)
  if (input.object_type !== null && input.object_type !== record.object_type) throw invalid({ object_type: `cannot change ${aType(record.object_type)} into another type` })
  checkWindow(input.columns, record)
  const links = await checkLinks(deps, caller, record, input)
  await checkExtras(deps, record.object_type, input)
  if (input.nickname !== undefined && input.nickname !== record.nickname &&
    (await deps.reads.store.objects.nicknamesTaken([input.nickname])).length > 0) throw nicknameTaken(input.nickname)
  const now = deps.now()
  const upload = input.upload_token === null ? null : await uploadToAttach(deps.reads.store, caller, record.object_type, input.upload_token, now)
  const patch: ObjectPatch = {
    nickname: input.nickname, columns: upload ? { ...input.columns, file: upload.file } : input.columns, ...(status === undefined ? {} : { status }),
    user_id: caller.user_id, extras: input.extras, links, claim: upload?.claim, idempotency,
  }
  const object = await writeAndView(deps, caller, input.nickname, (tx) => updateObject(tx, record.id, patch, now))
  // deleted by a concurrent write after it was read
  if (object === null) throw new DomainError('OBJECT_NOT_FOUND', `object "${input.id}" not found`)
  return object
}

/** The publication window, as it will be after the write, must not end before it starts. */
function checkWindow (columns: Partial<WritableColumns>, current?: ObjectRecord): void {
  const start = columns.start_date !== undefined ? columns.start_date : current?.start_date
  const end = columns.end_date !== undefined ? columns.end_date : current?.end_date
  const problem = windowProblem(start, end)
  if (problem !== null) throw invalid({ end_date: problem })
}

/** Parents must be tree nodes on the publication tree the writer can read; relations must fit and be reachable. */
async function checkLinks (deps: WriteDeps, caller: Caller, subject: { id: number, object_type: ObjectTypeName }, input: SaveInput): Promise<ObjectLinks> {
  const { store } = deps.reads
  const current = subject.id === 0 ? [] : await store.tree.parents(subject.id)
  const parents = [...new Set(input.parents ?? [])].filter((p) => !current.includes(p))
  const records = new Map((await store.objects.listByIds(parents)).map((r) => [r.id, r]))
  for (const p of parents) {
    const parent = records.get(p)
    if (parent === undefined || !isTreeNode(parent.object_type) || !(await onTree(deps, p))) {
      throw invalid({ parents: `object ${p} is not an area or section on the publication tree` })
    }
    if (subject.id !== 0) await checkPlacement(deps, caller, p, subject as ObjectRecord, subject.id)
    else if (!canRead(parent, caller.groups)) throw invalid({ parents: `object ${p} is not reachable` })
  }
  const relations: ObjectLinks['relations'] = []
  const seen = new Set<string>()
  for (const r of input.relations ?? []) {
    const key = `${r.name} ${r.related_id}`
    if (seen.has(key)) throw invalid({ [`relations.${r.name}`]: `object ${r.related_id} is listed twice` })
    seen.add(key)
    const inverse = relationNameFor(subject.object_type, r.name)
    await checkRelated(deps, caller, subject, r.name, [r.related_id])
    relations.push({ ...r, inverse })
  }
  return { parents, relations }
}

async function checkExtras (deps: WriteDeps, type: ObjectTypeName, input: SaveInput): Promise<void> {
  const dateItems = dateItemsProblem(type, (input.extras.date_items ?? []).length)
  if (dateItems !== null) throw invalid({ date_items: dateItems })
  const wanted = input.extras.categories ?? []
  const known = await deps.reads.store.vocabulary.existingCategories(wanted)
  const unknown = wanted.filter((c) => !known.includes(c))
  if (unknown.length > 0) throw invalid({ categories: `unknown category: ${unknown.join(', ')}` })
}
