import { createHash, randomBytes } from 'node:crypto'
import { DomainError } from '@content/platform'
import type { ObjectsStore } from './ports.js'
import type { UploadClaim } from './object-input.js'
import { aType } from './object-types.js'
import type { Caller, MediaFileRecord } from './types.js'

/** A new opaque upload token: 32 random bytes, base64url. */
export const newUploadToken = (): string => randomBytes(32).toString('base64url')

/** What the store keeps instead of the token: a leaked table cannot be used to attach files. */
export const uploadTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex')

/** One answer for unknown, expired, used and foreign tokens: a caller learns nothing about others' uploads. */
export const UNUSABLE_TOKEN = 'unknown, expired or already used'

export const uploadTokenInvalid = (why: string) =>
  new DomainError('UPLOAD_TOKEN_INVALID', `invalid upload_token: ${why}`, { upload_token: why })

/**
 * The file a SaveObject attaches with `upload_token`, and the claim its write makes. Only reads: a
 * refused use leaves the token usable; the claim in the write's transaction is what consumes it.
 */
export async function uploadToAttach (store: ObjectsStore, caller: Caller, objectType: string, token: string, now: number): Promise<{ file: MediaFileRecord, claim: UploadClaim }> {
  const upload = await store.uploads.get(uploadTokenHash(token), now)
  if (upload === null || upload.user_id !== caller.user_id) throw uploadTokenInvalid(UNUSABLE_TOKEN)
  if (upload.object_type !== objectType) throw uploadTokenInvalid(`the upload is for ${aType(upload.object_type)}, not ${aType(objectType)}`)
  return { file: upload.file, claim: { token_hash: upload.token_hash, now } }
}
