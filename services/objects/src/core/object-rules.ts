import { aType, acceptsDateItems, takesFile } from './object-types.js'

/**
 * The rules an object keeps whoever writes it: POST /objects (objects.writer.ts), an upload
 * (media.ts) and a fixtures file (fixtures.plan.ts). Each answers the problem of its field, or null.
 */

/** A period whose end precedes its start cannot be meant (an open end is fine). */
const endsBeforeStart = (start: number | null | undefined, end: number | null | undefined): boolean =>
  typeof start === 'number' && typeof end === 'number' && end < start

/** `end_date`, given the window as it will be after the write. */
export const windowProblem = (start: number | null | undefined, end: number | null | undefined): string | null =>
  endsBeforeStart(start, end) ? 'must not be before start_date' : null

/** `parents` of a new object. */
export const parentsProblem = (type: string, parents: number): string | null =>
  type === 'section' && parents !== 1 ? 'a section needs exactly one parent' : null

/** `date_items`. */
export const dateItemsProblem = (type: string, dateItems: number): string | null =>
  dateItems > 0 && !acceptsDateItems(type) ? `${aType(type)} has no date items` : null

/** `file`: only media objects have one. */
export const fileProblem = (type: string): string | null =>
  takesFile(type) ? null : `${aType(type)} takes no file`
