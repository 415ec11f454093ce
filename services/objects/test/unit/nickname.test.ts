import { describe, expect, it } from 'vitest'
import { nicknameBase, nicknameProblem, uniqueNickname } from '../../src/core/nickname.js'

describe('nicknameBase', () => {
  it.each([
    ['Hello World', 'hello-world'],
    ['Perché così?', 'perche-cosi'],
    ['  --Ça  va!!  ', 'ca-va'],
    ['snake_case-and-dash', 'snake_case-and-dash'],
    ['2024', 'n2024'],
    ['2024 review', '2024-review'],
    ['Ærø & Öl', 'aero-ol'], ['Straße', 'strasse'],
    ['!!!', ''],
    ['', ''],
    [null, ''],
    ['ĀĒĪ ōū', 'aei-ou'],
    ['ab '.repeat(200), `${'ab-'.repeat(85)}`.slice(0, 254)],
    ['1'.repeat(300), `n${'1'.repeat(254)}`],
    [`${'1'.repeat(254)} tail`, `n${'1'.repeat(254)}`],
  ])('when the title is %j, then the base is %j', (title, expected) => {
    expect(nicknameBase(title)).toBe(expected)
  })
})

describe('uniqueNickname', () => {
  const takenOf = (names: string[]) => (n: string) => names.includes(n)
  it.each([
    ['news', [], 'news'],
    ['news', ['news'], 'news-1'],
    ['news', ['news', 'news-1', 'news-2'], 'news-3'],
    ['', [], 'document-7'],
    ['', ['document-7'], 'document-7-1'],
    ['x'.repeat(255), ['x'.repeat(255)], `${'x'.repeat(253)}-1`],
    ['x'.repeat(255), ['x'.repeat(255), `${'x'.repeat(253)}-1`], `${'x'.repeat(253)}-2`],
    [`${'x'.repeat(252)}-yy`, [`${'x'.repeat(252)}-yy`], `${'x'.repeat(252)}-1`],
  ])('when %j is wanted and %j are taken, then %j', (base, taken, expected) => {
    expect(uniqueNickname(base, 'document-7', takenOf(taken))).toBe(expected)
  })
})

describe('nicknameProblem', () => {
  it.each([
    ['ok-name_1', null],
    ['', 'must not be empty'],
    ['Upper', 'may contain only a-z, 0-9, "_" and "-"'],
    ['with space', 'may contain only a-z, 0-9, "_" and "-"'],
    ['123', 'must not be all digits'],
    ['n123', null],
  ])('when the nickname is %j, then the problem is %j', (nickname, problem) => {
    expect(nicknameProblem(nickname)).toBe(problem)
  })
})
