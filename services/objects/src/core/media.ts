import { DomainError, describeIssues } from '@content/platform'
import { isFileKey, mediaFileSchema } from './media-file.js'
import { fileProblem } from './object-rules.js'
import type { ObjectTypeName } from './object-types.js'
import { readable, type ReadDeps } from './read-context.js'
import { isRelationValidFor } from './relation-types.js'
import type { Caller, MediaFileRecord, ObjectRecord, Visibility } from './types.js'
import { newUploadToken, uploadTokenHash } from './upload-token.js'
import { isProtected } from './visibility.js'
import { invalid, requireWriteAccess, writableType, type WriteDeps } from './write-context.js'

/** The object side of media files (decisions §12), asked by the poster service. */
export interface MediaDeps extends WriteDeps {
  /** how long an upload waits for the write that attaches it */
  uploadTtlMs: number
}

/** FilesInUse answers at most this many keys per call: the poster's collector asks in batches. */
export const MAX_KEYS_PER_CALL = 1_000

/** May the caller upload a file for an object of this type? 401/403 first, then the type (decisions §2). */
export function authorizeUpload (deps: WriteDeps, caller: Caller, objectType: string, writableTypes: string[]): ObjectTypeName {
  requireWriteAccess(deps, caller, null)
  const type = writableType(objectType, writableTypes)
  const problem = fileProblem(type)
  if (problem !== null) throw new DomainError('TYPE_TAKES_NO_FILE', problem)
  return type
}

/**
 * Records a file the poster service stored as a pending upload of the caller; answers the token that
 * SaveObject takes. The writable-types list is the gateway's and only SaveObject gets it: here every
 * media type counts as writable, and SaveObject applies the list when the token is used.
 */
export async function registerUpload (deps: MediaDeps, caller: Caller, objectType: string, file: unknown): Promise<{ upload_token: string, expires_at: number }> {
  const type = authorizeUpload(deps, caller, objectType, [])
  if (file === null || file === undefined) throw invalid({ file: 'is required' })
  const parsed = mediaFileSchema.safeParse(file)
  if (!parsed.success) throw invalid(Object.fromEntries(describeIssues(parsed.error, 'file.').map(splitIssue)))
  const token = newUploadToken()
  const now = deps.now()
  const expires_at = now + deps.uploadTtlMs
  await deps.reads.store.uploads.add({ token_hash: uploadTokenHash(token), user_id: caller.user_id, object_type: type, file: parsed.data, expires_at }, now)
  return { upload_token: token, expires_at }
}

/** `file.key: must be …` → ['file.key', 'must be …'] */
const splitIssue = (line: string): [string, string] => {
  const at = line.indexOf(': ')
  return [line.slice(0, at), line.slice(at + 2)]
}

/** The keys among `keys` that an object or an unexpired upload still uses (the poster's collector spares those). */
export async function filesInUse (deps: ReadDeps, keys: string[]): Promise<string[]> {
  if (keys.length > MAX_KEYS_PER_CALL) throw invalid({ keys: `at most ${MAX_KEYS_PER_CALL} keys per call` })
  const bad = keys.find((k) => !isFileKey(k))
  if (bad !== undefined) throw invalid({ keys: `"${bad.slice(0, 80)}" is not a content key (64 lower-case hex digits)` })
  if (keys.length === 0) return []
  return deps.store.uploads.filesInUse([...new Set(keys)], deps.now())
}

/** An object as far as media are concerned. */
export interface MediaObject {
  id: number
  object_type: ObjectTypeName
  file: MediaFileRecord | null
  free_access: boolean
}

export interface MediaSubject {
  object: MediaObject
  poster: MediaObject | null
  attached: MediaObject | null
}

const mediaObject = (r: ObjectRecord): MediaObject => ({ id: r.id, object_type: r.object_type, file: r.file, free_access: !isProtected(r) })

/**
 * The object named, with the caller's read rights (404/401/403 as reads), and on request the
 * candidates of its poster (spec 4.9): the first image the caller sees related as `poster`, and as `attach`.
 */
export async function getMedia (deps: ReadDeps, caller: Caller, objectId: string, withCandidates: boolean): Promise<MediaSubject> {
  const { record, vis } = await readable(deps, caller, objectId)
  if (!withCandidates) return { object: mediaObject(record), poster: null, attached: null }
  const [poster, attached] = await Promise.all([firstImage(deps, record, 'poster', vis), firstImage(deps, record, 'attach', vis)])
  return { object: mediaObject(record), poster, attached }
}

/** The first visible image of a relation, by relation priority then id. */
async function firstImage (deps: ReadDeps, record: ObjectRecord, name: string, vis: Visibility): Promise<MediaObject | null> {
  if (!isRelationValidFor(name, record.object_type)) return null
  const { items } = await deps.store.relations.list(record.id, name, { visibility: vis, filter: { object_types: ['image'], query: '' }, offset: 0, limit: 1 })
  const first = items[0]
  if (first === undefined) return null
  const [image] = await deps.store.objects.listByIds([first.related_id])
  return image === undefined ? null : mediaObject(image)
}
