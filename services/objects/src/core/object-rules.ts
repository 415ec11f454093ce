import { aType, acceptsDateItems, takesFile } from './object-types.js'

export { windowProblem } from '@content/api-schema'

/**
 * The rules an object keeps whoever writes it: POST /objects (objects.writer.ts), an upload
 * (media.ts) and a fixtures file (fixtures.plan.ts). Each answers the problem of its field, or null.
 */

/** `parents` of a new object. */
export const parentsProblem = (type: string, parents: number): string | null =>
  type === 'section' && parents !== 1 ? 'a section needs exactly one parent' : null

/** `date_items`. */
export const dateItemsProblem = (type: string, dateItems: number): string | null =>
  dateItems > 0 && !acceptsDateItems(type) ? `${aType(type)} has no date items` : null

/** `file`: only media objects have one. */
export const fileProblem = (type: string): string | null =>
  takesFile(type) ? null : `${aType(type)} takes no file`
