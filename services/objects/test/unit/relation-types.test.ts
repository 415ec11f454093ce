import { describe, expect, it } from 'vitest'
import { canRelate, inverseName, isRelationValidFor, relationNamesFor } from '../../src/core/relation-types.js'

describe('relation types', () => {
  it.each([
    ['attach', 'attached_to'], ['attached_to', 'attach'], ['download', 'downloadable_in'],
    ['downloadable_in', 'download'], ['poster', 'poster_of'], ['poster_of', 'poster'], ['seealso', 'seealso'], ['bogus', null],
  ])('when the name is %s, then the inverse is %s', (name, inverse) => {
    expect(inverseName(name)).toBe(inverse)
  })

  it.each([
    ['attach', 'document', true], ['attached_to', 'document', false], ['attached_to', 'image', true],
    ['attached_to', 'gallery', true], ['downloadable_in', 'gallery', false], ['poster_of', 'image', true],
    ['poster_of', 'video', false], ['seealso', 'event', true], ['nope', 'document', false],
  ] as const)('when %s is asked of a %s, then valid is %s', (name, type, expected) => {
    expect(isRelationValidFor(name, type)).toBe(expected)
  })

  it.each([
    ['attach', 'document', 'image', true], ['attach', 'document', 'document', false], ['attach', 'event', 'gallery', true],
    ['download', 'document', 'gallery', false], ['poster', 'section', 'image', true], ['poster', 'section', 'video', false],
    ['attached_to', 'image', 'document', true], ['attached_to', 'document', 'image', false], ['seealso', 'card', 'link', true],
  ] as const)('when %s goes from a %s to a %s, then allowed is %s', (name, subject, related, expected) => {
    expect(canRelate(name, subject, related)).toBe(expected)
  })

  it('when names of a type are listed, then direct names come first and inverses where the type fits', () => {
    expect(relationNamesFor('document')).toEqual(['attach', 'download', 'poster', 'seealso'])
    expect(relationNamesFor('image')).toEqual(['attach', 'download', 'poster', 'seealso', 'attached_to', 'downloadable_in', 'poster_of'])
  })
})
