import type { CallContext, MediaFile, MediaSubject } from '../core/types.js'

/** The objects service's side of media files (MediaService), as this service uses it. */
export interface ObjectsPort {
  /** May the caller upload a file for an object of this type? Throws the objects service's 401/403/400. */
  authorizeUpload(objectType: string, writableTypes: string[], ctx: CallContext): Promise<void>
  /** Records a stored file as the caller's pending upload; answers its token. */
  registerUpload(objectType: string, file: MediaFile, ctx: CallContext): Promise<{ upload_token: string, expires_at: number }>
  /** The keys among `keys` an object or an unexpired upload still uses. */
  filesInUse(keys: string[]): Promise<string[]>
  /** The object (after the caller's read check) and, on request, its poster candidates. */
  getMedia(objectId: string, withCandidates: boolean, ctx: CallContext): Promise<MediaSubject>
  close(): void
}
