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
