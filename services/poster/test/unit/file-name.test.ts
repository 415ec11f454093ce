import { describe, expect, it } from 'vitest'
import { checkFileName } from '../../src/core/file-name.js'

describe('checkFileName', () => {
  it('when a name is refused, then 400 INVALID_FILE_NAME names file_name with the reason', () => {
    expect(() => checkFileName('a/b')).toThrow(expect.objectContaining({ reason: 'INVALID_FILE_NAME', code: 'INVALID_ARGUMENT', details: { file_name: 'must not contain "/" or "\\"' } }))
    expect(() => checkFileName('a..b.png')).toThrow(expect.objectContaining({ reason: 'INVALID_FILE_NAME', details: { file_name: 'must not contain ".." or be "."' } }))
    expect(() => checkFileName('ok.png')).not.toThrow()
  })
})
