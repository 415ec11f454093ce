import { objectFieldShape } from '@content/api-schema'
import { z } from 'zod'
import { mediaFileSchema } from './media-file.js'

/** A reference inside a fixtures file: a ref string (`@publication` included) or an existing id. */
export const fixtureTarget = z.union([z.string().min(1), z.number().int().positive()])

const relationItem = z.object({
  related: fixtureTarget,
  priority: z.number().int().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
}).strict()

const vocabularyItem = z.object({
  name: z.string().min(1).max(255),
  label: z.string().max(255).optional(),
}).strict()

export const fixtureObject = z.object({
  ...objectFieldShape,
  ref: z.string().min(1).max(255).optional(),
  object_type: z.string(),
  // what the poster service stored for the file the fixtures file names: the admin tool fills it in
  file: mediaFileSchema.nullable().optional(),
  status: z.enum(['on', 'off', 'draft']).default('on'),
  parents: z.array(fixtureTarget).default([]),
  relations: z.record(z.string(), z.array(relationItem)).default({}),
  permissions: z.object({
    read: z.array(z.string().min(1)).default([]),
    write: z.array(z.string().min(1)).default([]),
  }).strict().optional(),
}).strict()

/** Decisions §11; `groups` and `users` belong to the auth service and are ignored here. */
export const fixturesFile = z.object({
  groups: z.unknown().optional(),
  users: z.unknown().optional(),
  categories: z.array(vocabularyItem).default([]),
  tags: z.array(vocabularyItem).default([]),
  objects: z.array(fixtureObject).default([]),
}).strict()

export type FixtureObject = z.infer<typeof fixtureObject>
export type FixtureTarget = z.infer<typeof fixtureTarget>
