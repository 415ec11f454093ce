import { describe, expect, it } from 'vitest'
import { fileNameProblem } from '../src/file-names.js'

describe('fileNameProblem', () => {
  it.each([
    ['photo.jpg', null],
    ['Été à la plage – 2024.jpeg', null],
    ['写真.png', null],
    ['emoji 🎉.gif', null],
    ['no extension', null],
    ['.hidden', null],
    [`${'n'.repeat(251)}.png`, null],
    [`${'é'.repeat(127)}a`, null],
    ['', 'must not be empty'],
    [`${'n'.repeat(252)}.png`, 'must be at most 255 UTF-8 bytes'],
    [`${'é'.repeat(128)}`, 'must be at most 255 UTF-8 bytes'],
    ['a/b.png', 'must not contain "/" or "\\"'],
    ['/etc/passwd', 'must not contain "/" or "\\"'],
    ['a\\b.png', 'must not contain "/" or "\\"'],
    ['..', 'must not contain ".." or be "."'],
    ['a..b.png', 'must not contain ".." or be "."'],
    ['.', 'must not contain ".." or be "."'],
    ['nul\u0000.png', 'must not contain control characters'],
    ['line\nbreak.png', 'must not contain control characters'],
    ['esc\u001b.png', 'must not contain control characters'],
    ['del\u007f.png', 'must not contain control characters'],
    ['half\ud800.png', 'must be valid Unicode'],
  ])('when the name is %j, then the problem is %j', (name, problem) => {
    expect(fileNameProblem(name)).toBe(problem)
  })
})
