import type { operations } from './gen/openapi.js'
import type { ObjectsApi, WriteOptions } from './objects.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type { ContentObject, ObjectCreate, ObjectUpdate, Upload } from './types.js'

/** The object types that carry a file (decisions §12). */
export type MediaType = operations['postFilesObjectTypeFileName']['parameters']['path']['object_type']

/** A file to upload: its bytes, MIME type and name. A stream body cannot be sent twice, so it is not retried after a token refresh. */
export interface FileInput {
  objectType: MediaType
  fileName: string
  contentType: string
  body: Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array>
}

export interface UploadsApi {
  /** POST /files/{type}/{name}: the first step; answers the single-use `upload_token`. */
  upload (file: FileInput, options?: { signal?: AbortSignal }): Promise<Upload>
  /** Both steps: uploads the file, then creates the media object with it (`fields` as for objects.create). */
  create (file: FileInput, fields: Omit<ObjectCreate, 'object_type' | 'upload_token'>, options?: WriteOptions): Promise<ContentObject>
  /** Both steps: uploads the file, then replaces the file of media object `id`. */
  replace (id: number, file: FileInput, fields?: Omit<ObjectUpdate, 'upload_token'>, options?: WriteOptions): Promise<ContentObject>
}

export function createUploads (transport: Transport, objects: ObjectsApi): UploadsApi {
  async function upload (file: FileInput, options: { signal?: AbortSignal } = {}): Promise<Upload> {
    const answer = await transport.send<{ data: Upload }>({
      method: 'POST', path: `/files${pathOf(file.objectType, file.fileName)}`,
      bytes: { body: file.body as BodyInit, contentType: file.contentType }, signal: options.signal,
    })
    return answer.data
  }
  return {
    upload,
    async create (file, fields, options = {}) {
      const { upload_token } = await upload(file, options)
      return objects.create({ ...fields, object_type: file.objectType, upload_token }, options)
    },
    async replace (id, file, fields = {}, options = {}) {
      const { upload_token } = await upload(file, options)
      return objects.update(id, { ...fields, upload_token }, options)
    },
  }
}
