import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import * as media from '../core/media.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toMediaFile } from './object.mapper.js'
import { writeDepsOf } from './writes.handlers.js'

/** MediaService: the object side of media files, asked by the poster service. */
export function mediaHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.MediaServiceHandlers> {
  const w = { ...writeDepsOf(deps), uploadTtlMs: deps.uploadTtlMs }
  return {
    AuthorizeUpload: async (req) => {
      media.authorizeUpload(w, callerOf(req.caller), req.object_type, req.writable_types)
      return {}
    },
    RegisterUpload: async (req) => media.registerUpload(w, callerOf(req.caller), req.object_type, fileFields(req.file)),
    FilesInUse: async (req) => ({ keys: await media.filesInUse(deps.reads, req.keys) }),
    GetMedia: async (req) => {
      const subject = await media.getMedia(deps.reads, callerOf(req.caller), req.object_id, req.with_candidates)
      return { object: toMediaObject(subject.object), poster: optional(subject.poster), attached: optional(subject.attached) }
    },
  }
}

/** The proto's fields only, for the core to check: a decoded message may carry more than its type says. */
function fileFields (f: v1.MediaFile__Output | null): Record<string, unknown> | null {
  return f === null ? null : { key: f.key, name: f.name, mime_type: f.mime_type, size: f.size, width: f.width, height: f.height }
}

function toMediaObject (o: media.MediaObject): v1.MediaObject {
  return { id: o.id, object_type: o.object_type, file: o.file === null ? undefined : toMediaFile(o.file), free_access: o.free_access }
}

const optional = (o: media.MediaObject | null): v1.MediaObject | undefined => (o === null ? undefined : toMediaObject(o))
