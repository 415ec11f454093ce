import { z } from 'zod'
import { TOO_DEEP, describeIssues, parseJson } from '@content/platform'

/**
 * The parts of a fixtures file (decisions §11) the auth service loads. Objects, categories and tags
 * are validated by the objects service itself (in a dry run), so here they only need to be arrays.
 */
const groupSchema = z.object({ name: z.string().min(1), backend_auth: z.boolean().default(false) }).strict()
const userSchema = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  groups: z.array(z.string().min(1)).default([]),
  name: z.string().default(''),
  email: z.string().default(''),
  /** the user's card object: a ref of this file or an object id */
  card: z.union([z.string().min(1), z.number().int().positive()]).optional(),
}).strict()

export const fixturesSchema = z.object({
  groups: z.array(groupSchema).default([]),
  users: z.array(userSchema).default([]),
  categories: z.array(z.unknown()).default([]),
  tags: z.array(z.unknown()).default([]),
  objects: z.array(z.unknown()).default([]),
}).strict()

export type Fixtures = z.infer<typeof fixturesSchema>

export class FixturesError extends Error {
  constructor (readonly problems: string[]) {
    super(`invalid fixtures file:\n  - ${problems.join('\n  - ')}`)
  }
}

/** Parses the text of a fixtures file; every problem of its shape at once. */
export function parseFixtures (text: string): Fixtures {
  const json = parseJson(text)
  if (!json.ok) throw new FixturesError([json.tooDeep ? TOO_DEEP : json.rule ? json.syntax : `not valid JSON: ${json.syntax}`])
  const result = fixturesSchema.safeParse(json.value)
  if (!result.success) throw new FixturesError(describeIssues(result.error))
  const problems = cardProblems(result.data)
  if (problems.length) throw new FixturesError(problems)
  return result.data
}

/** A user's card named by ref must be an object of type `card` in the same file. */
export function cardProblems (fixtures: Fixtures): string[] {
  const types = new Map<string, unknown>()
  for (const object of fixtures.objects) {
    if (object && typeof object === 'object' && 'ref' in object) types.set(String(object.ref), (object as { object_type?: unknown }).object_type)
  }
  return fixtures.users.flatMap((user, i) => {
    if (typeof user.card !== 'string') return []
    if (!types.has(user.card)) return [`users.${i}.card: no object has the ref "${user.card}"`]
    return types.get(user.card) === 'card' ? [] : [`users.${i}.card: "${user.card}" is not an object of type card`]
  })
}

/** The users as the auth service takes them; card refs resolved through `refs` (left out while unknown). */
export function accountUsers (fixtures: Fixtures, refs: Record<string, number> = {}) {
  return fixtures.users.map(({ card, ...user }) => {
    const cardId = typeof card === 'number' ? card : card === undefined ? undefined : refs[card]
    return cardId === undefined ? user : { ...user, card_id: cardId }
  })
}

/**
 * Ref → id from the objects service's compact answer: the id of each object with a ref, in the file's order
 * (the service validated every ref as a string). A service that does not know the compact answer sends the map.
 */
export function refsOf (objects: unknown[], answer: { refs?: Record<string, number | string>, ref_ids?: (number | string)[] }): Record<string, number> {
  const ids = answer.ref_ids ?? []
  const refs: Record<string, number> = {}
  if (ids.length === 0) {
    for (const [ref, id] of Object.entries(answer.refs ?? {})) refs[ref] = Number(id)
    return refs
  }
  const named = objects.flatMap((o) => {
    const ref = (o as { ref?: unknown }).ref
    return typeof ref === 'string' ? [ref] : []
  })
  if (named.length !== ids.length) throw new Error(`the objects service answered ${ids.length} ids for the file's ${named.length} refs`)
  named.forEach((ref, i) => { refs[ref] = Number(ids[i]) })
  return refs
}
