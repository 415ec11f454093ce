import { OBJECT_TYPE_NAMES, OBJECT_TYPE_TRAITS, isObjectType, traitsOf, type ObjectTypeName } from '@content/api-schema'

/** The objects service's reading of the type traits (@content/api-schema holds the facts). */
export type { ObjectTypeName }
export { isObjectType, traitsOf }

export const OBJECT_TYPES = OBJECT_TYPE_NAMES

export const objectTypeId = (name: ObjectTypeName): number => OBJECT_TYPE_TRAITS[name].id

/** Areas (the publication) and sections hold children; nothing else is a tree node. */
export const isTreeNode = (type: string): boolean => traitsOf(type).treeNode

/** Decisions §12: the types whose objects may carry one file. */
export const takesFile = (type: string): boolean => traitsOf(type).takesFile

/** Only types with dates accept date items. */
export const acceptsDateItems = (type: string): boolean => traitsOf(type).dateItems

/** "a document", "an event": type names in messages people read. */
export const aType = (type: string): string => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
