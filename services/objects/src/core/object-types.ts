import { OBJECT_TYPE_IDS, OBJECT_TYPE_NAMES, type ObjectTypeName } from '@content/api-schema'

export type { ObjectTypeName }

export const OBJECT_TYPES = OBJECT_TYPE_NAMES

export function isObjectType (name: string): name is ObjectTypeName {
  return Object.hasOwn(OBJECT_TYPE_IDS, name)
}

export function objectTypeId (name: ObjectTypeName): number {
  return OBJECT_TYPE_IDS[name]
}

/** Areas (the publication) and sections hold children; nothing else is a tree node. */
export function isTreeNode (type: string): boolean {
  return type === 'area' || type === 'section'
}

/** Decisions §12: the types whose objects may carry one file. */
const MEDIA_TYPES: readonly string[] = ['image', 'video', 'audio', 'b_e_file'] satisfies ObjectTypeName[]

export function takesFile (type: string): boolean {
  return MEDIA_TYPES.includes(type)
}

/** Only types with dates accept date items. */
export function acceptsDateItems (type: string): boolean {
  return type === 'event'
}

/** "a document", "an event": type names in messages people read. */
export const aType = (type: string): string => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
