import { isContentKey, type MediaFile, type MediaObject, type MediaSubject } from './types.js'

export type PosterChoice =
  | { kind: 'image', image: MediaObject & { file: MediaFile } }
  | { kind: 'placeholder', id: number }

const isImage = (o: MediaObject | null): o is MediaObject => o !== null && o.object_type === 'image'

/**
 * Spec 4.9: the first image of the `poster` relation, else the object itself when it is an image, else
 * the first attached image. None → a placeholder for the object; a chosen image without a (usable) file
 * → a placeholder for that image.
 */
export function choosePoster (subject: MediaSubject): PosterChoice {
  const chosen = [subject.poster, subject.object, subject.attached].find(isImage)
  if (chosen === undefined) return { kind: 'placeholder', id: subject.object.id }
  const file = chosen.file
  if (file === null || !isContentKey(file.key)) return { kind: 'placeholder', id: chosen.id }
  return { kind: 'image', image: { ...chosen, file } }
}
