import { z } from 'zod'
import { describeIssues } from '@content/platform'

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
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new FixturesError([`not valid JSON: ${(err as Error).message}`])
  }
  const result = fixturesSchema.safeParse(raw)
  if (!result.success) throw new FixturesError(describeIssues(result.error))
  return result.data
}
