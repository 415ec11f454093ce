import { RELATION_TYPES, allowsRelated, canRelate, lookupRelation, type RelationSide, type RelationType } from '@content/api-schema'
import type { ObjectTypeName } from './object-types.js'

export { RELATION_TYPES, canRelate, lookupRelation, type RelationSide, type RelationType }

/** The name the other side of a relation carries. */
export function inverseName (name: string): string | null {
  const side = lookupRelation(name)
  if (!side) return null
  return side.inverse ? side.type.name : side.type.inverse
}

/**
 * Whether `name` is valid for an object of `objectType`: any object may be the subject of a direct
 * name; an inverse name needs the object to be a type the direct name may point at.
 */
export function isRelationValidFor (name: string, objectType: ObjectTypeName): boolean {
  const side = lookupRelation(name)
  if (!side) return false
  return side.inverse ? allowsRelated(side.type, objectType) : true
}

/** Every relation name valid for a type, direct names first. */
export function relationNamesFor (objectType: ObjectTypeName): string[] {
  const names: string[] = []
  for (const type of RELATION_TYPES) names.push(type.name)
  for (const type of RELATION_TYPES) {
    if (type.inverse !== type.name && allowsRelated(type, objectType)) names.push(type.inverse)
  }
  return names
}
