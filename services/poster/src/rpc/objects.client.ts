import { isBackendErrorCode } from '@content/api-schema'
import { DomainError, createClient, toTransportError, type ClientSettings } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import type { CallContext, MediaFile, MediaObject } from '../core/types.js'
import type { ObjectsPort } from '../services/objects.port.js'

/** gRPC status numbers (stable across implementations) passed on; anything else is our fault. */
const PASSED_ON: ReadonlySet<number> = new Set([3, 4, 5, 6, 7, 8, 9, 11, 14, 16])

/**
 * A failed call to the objects service → what this service answers: the objects service's domain errors
 * (401/403/404/400 with their reason) pass through unchanged; a transport failure stays a 503/504.
 */
export function fromRemote (err: unknown): Error {
  if (err instanceof DomainError) return err
  const t = toTransportError(err)
  if (!PASSED_ON.has(t.grpcStatus) || !isBackendErrorCode(t.reason)) return err instanceof Error ? err : new Error(String(err))
  return new DomainError(t.reason, t.expose ? t.message : 'the objects service did not answer', t.details)
}

const int = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0)

/** A file as the objects service describes it: every field checked where it is used, shaped here. */
function mediaFile (f: v1.MediaFile__Output | null | undefined): MediaFile | null {
  if (!f) return null
  return { key: f.key, name: f.name, mime_type: f.mime_type, size: int(f.size), width: int(f.width), height: int(f.height) }
}

function mediaObject (o: v1.MediaObject__Output): MediaObject {
  return { id: o.id, object_type: o.object_type, file: mediaFile(o.file), free_access: o.free_access === true }
}

const options = (ctx: CallContext) => ({ requestId: ctx.requestId, userToken: ctx.userToken })

/** The MediaService client: one per process, every call under the RPC deadline. */
export function createObjectsClient (address: string, settings: ClientSettings): ObjectsPort {
  const client = createClient<v1.MediaServiceDefinition>(loadContentProtos().content.v1.MediaService, address, settings)
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (err) {
      throw fromRemote(err)
    }
  }
  return {
    authorizeUpload: async (objectType, writableTypes, ctx) => {
      await call(() => client.AuthorizeUpload({ object_type: objectType, writable_types: writableTypes }, options(ctx)))
    },
    registerUpload: async (objectType, file, ctx) => {
      const ticket = await call(() => client.RegisterUpload({ object_type: objectType, file }, options(ctx)))
      return { upload_token: ticket.upload_token, expires_at: ticket.expires_at }
    },
    filesInUse: async (keys) => (await call(() => client.FilesInUse({ keys }))).keys,
    getMedia: async (objectId, withCandidates, ctx) => {
      const s = await call(() => client.GetMedia({ object_id: objectId, with_candidates: withCandidates }, options(ctx)))
      if (!s.object) throw new Error('GetMedia answered without the object')
      return { object: mediaObject(s.object), poster: s.poster ? mediaObject(s.poster) : null, attached: s.attached ? mediaObject(s.attached) : null }
    },
    close: () => client.close(),
  }
}
