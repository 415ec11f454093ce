import { describe, expect, it } from 'vitest'
import { choosePoster } from '../../src/core/poster-choice.js'
import type { MediaFile, MediaObject } from '../../src/core/types.js'

const file = (n: number): MediaFile => ({ key: n.toString(16).padStart(64, '0'), name: `${n}.jpg`, mime_type: 'image/jpeg', size: 9, width: 4, height: 3 })
const image = (id: number, f: MediaFile | null = file(id)): MediaObject => ({ id, object_type: 'image', file: f, free_access: true })
const doc: MediaObject = { id: 1, object_type: 'document', file: null, free_access: true }

describe('choosePoster (spec 4.9)', () => {
  it.each([
    ['a poster image before all', doc, image(2), image(3), { kind: 'image', id: 2 }],
    ['a poster image before the object\'s own image', image(5), image(2), image(3), { kind: 'image', id: 2 }],
    ['the object itself when it is an image', image(5), null, image(3), { kind: 'image', id: 5 }],
    ['the attached image last', doc, null, image(3), { kind: 'image', id: 3 }],
    ['nothing: a placeholder for the object', doc, null, null, { kind: 'placeholder', id: 1 }],
    ['a poster image without a file: a placeholder for that image', doc, image(2, null), image(3), { kind: 'placeholder', id: 2 }],
    ['an own image without a file: a placeholder for it', image(5, null), null, image(3), { kind: 'placeholder', id: 5 }],
    ['a poster whose key is not a content key: a placeholder for it', doc, image(2, { ...file(2), key: '../x' }), null, { kind: 'placeholder', id: 2 }],
    ['a "poster" that is not an image: skipped', doc, { ...image(2), object_type: 'video' }, image(3), { kind: 'image', id: 3 }],
  ])('when the subject has %s, then the choice follows', (_label, object, poster, attached, expected) => {
    const choice = choosePoster({ object, poster, attached })
    expect(choice.kind === 'image' ? { kind: 'image', id: choice.image.id } : choice).toEqual(expected)
  })
})
