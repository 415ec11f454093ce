import type { v1 } from '@content/protos'
import { uploadHeader, type Harness } from './harness.js'
import { orientedJpeg, smallPng } from './images.js'
import { must } from './must.js'

export const MISSING_KEY = 'f'.repeat(64)

/**
 * Objects over two stored originals — a JPEG shown 200×400 (`jpeg`) and a 40×30 PNG (`png`) — covering
 * each branch of the poster choice.
 */
export async function buildSite (h: Harness) {
  const upload = async (name: string, mime: string, bytes: Buffer) =>
    must(((await h.upload(uploadHeader({ file_name: name, mime_type: mime }), bytes)) as v1.UploadReceipt__Output).file)
  const jpeg = await upload('oriented.jpg', 'image/jpeg', await orientedJpeg())
  const png = await upload('small.png', 'image/png', await smallPng(40, 30))
  const image = (id: number, file: v1.MediaFile | null, free_access = true) => h.fake.put({ id, object_type: 'image', file, free_access })
  const doc = (id: number, over: object = {}) => h.fake.put({ id, object_type: 'document', file: null, free_access: true, ...over })
  image(10, jpeg)
  image(11, png, false)
  image(12, null)
  image(13, { ...png, key: MISSING_KEY })
  image(14, jpeg, false)
  const ids = {
    withPoster: doc(1, { poster: 10, attached: 11 }).id,
    imageItself: image(2, png).id,
    attachedOnly: doc(3, { attached: 11 }).id,
    nothing: doc(4).id,
    posterWithoutFile: doc(5, { poster: 12, attached: 10 }).id,
    posterMissingOriginal: doc(6, { poster: 13 }).id,
    protectedDoc: doc(7, { poster: 10, free_access: false }).id,
    imageWithPoster: h.fake.put({ id: 8, object_type: 'image', file: png, free_access: true, poster: 10 }).id,
    protectedImage: 14,
  }
  return { jpeg, png, ids }
}
