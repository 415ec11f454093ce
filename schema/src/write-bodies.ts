import { z } from 'zod'

/**
 * The `data` of the tree and relation writes (spec 2.11): one schema each, which the objects service
 * validates with (its messages per field in `write-body.ts`) and the OpenAPI document shows
 * (`bodyJsonSchema`), as `POST /objects`'s (object-body.ts).
 */

/** Priorities are stored as 32-bit integers (protos: int32). */
export const MAX_PRIORITY = 2_147_483_647

/** Items one write of children or relations takes at most. */
export const MAX_LINK_ITEMS = 1000

const id = z.number().int().positive()
const priority = z.number().int().min(0).max(MAX_PRIORITY)
/** Shared by both rows of a relation, any JSON object; stored as its text. */
const params = z.record(z.string(), z.unknown())

/** A relation a write saves: `POST /objects/{id}/relations/{name}` and the `relations` of `POST /objects`. */
export const relationItemData = z.object({
  related_id: id,
  params: params.nullable().optional(),
  priority: priority.nullable().optional(),
}).strict()

/** `POST /objects/{id}/children`: a child placed (appended when no priority) or moved. */
export const childItemData = z.object({
  child_id: id,
  priority: priority.nullable().optional(),
}).strict()

/** `PUT /objects/{id}/relations/{name}/{related_id}`: priority and/or params; the one left out becomes null. */
export const relationReplaceData = z.object({
  priority: priority.nullable().optional(),
  params: params.nullable().optional(),
}).strict().refine((d) => d.priority != null || d.params != null, { message: 'needs params or priority' })

/** `PUT /objects/{id}/children/{child_id}`. */
export const childPriorityData = z.object({ priority }).strict()

/** A write that takes one item or a list of them. */
export const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1).max(MAX_LINK_ITEMS)])

/** The JSON Schema of a whole body `{"data": …}` of `data`, as the OpenAPI document shows it. */
export function bodyJsonSchema (data: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(data, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return { type: 'object', properties: { data: schema }, required: ['data'], additionalProperties: false }
}
