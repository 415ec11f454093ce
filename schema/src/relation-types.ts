import type { ObjectTypeName } from './object-types.js'

/** A relation kind: `name` from subject to related, `inverse` back; `related` null = any type. */
export interface RelationType {
  name: string
  inverse: string
  related: readonly ObjectTypeName[] | null
}

/** The relation set (decisions §5). `seealso` is its own inverse. */
export const RELATION_TYPES: readonly RelationType[] = [
  { name: 'attach', inverse: 'attached_to', related: ['b_e_file', 'image', 'application', 'audio', 'video', 'gallery'] },
  { name: 'download', inverse: 'downloadable_in', related: ['b_e_file', 'image', 'application', 'audio', 'video'] },
  { name: 'poster', inverse: 'poster_of', related: ['image'] },
  { name: 'seealso', inverse: 'seealso', related: null },
]

/** Every relation name, direct and inverse. */
export const RELATION_NAMES: ReadonlySet<string> = new Set(RELATION_TYPES.flatMap((t) => [t.name, t.inverse]))

/** A name as seen from one side: its type, and whether it is the inverse direction. */
export interface RelationSide {
  type: RelationType
  inverse: boolean
}

export function lookupRelation (name: string): RelationSide | null {
  for (const type of RELATION_TYPES) {
    if (type.name === name) return { type, inverse: false }
    if (type.inverse === name) return { type, inverse: true }
  }
  return null
}

export function allowsRelated (type: RelationType, objectType: ObjectTypeName): boolean {
  return type.related === null || type.related.includes(objectType)
}

/** Whether `subject -name-> related` is allowed for these two types. */
export function canRelate (name: string, subject: ObjectTypeName, related: ObjectTypeName): boolean {
  const side = lookupRelation(name)
  if (!side) return false
  return side.inverse ? allowsRelated(side.type, subject) : allowsRelated(side.type, related)
}
