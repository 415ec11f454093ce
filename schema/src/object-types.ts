/** What one object type is (decisions §4, §9, §12): the facts every service reads from here. */
export interface ObjectTypeTraits {
  /** the numeric `object_type_id` */
  readonly id: number
  /** the English plural: the name of its object-type endpoint */
  readonly plural: string
  /** holds children on the tree (the publication and sections) */
  readonly treeNode: boolean
  /** an object of it may carry one file (decisions §12) */
  readonly takesFile: boolean
  /** its file is an image whose width and height are shown */
  readonly sized: boolean
  /** it has dates, and so accepts and shows `date_items` */
  readonly dateItems: boolean
  /** clients may write it where the configuration's writable types, if it lists any, name it; false: never (the publication) */
  readonly writableByDefault: boolean
}

type Flags = Omit<ObjectTypeTraits, 'id' | 'plural'>
const DEFAULT_FLAGS = { treeNode: false, takesFile: false, sized: false, dateItems: false, writableByDefault: true } as const

/** A type's traits: the defaults but where `flags` says otherwise (kept literal, so types can be derived from them). */
function type<const F extends Partial<Flags> = Record<never, never>> (id: number, plural: string, flags?: F) {
  return { id, plural, ...DEFAULT_FLAGS, ...flags } as { id: number, plural: string } & Omit<typeof DEFAULT_FLAGS, keyof F> & F
}

/** Every object type, by name. */
export const OBJECT_TYPE_TRAITS = {
  area: type(1, 'areas', { treeNode: true, writableByDefault: false }),
  section: type(3, 'sections', { treeNode: true }),
  b_e_file: type(10, 'b_e_files', { takesFile: true }),
  image: type(12, 'images', { takesFile: true, sized: true }),
  short_news: type(18, 'short_news'),
  event: type(21, 'events', { dateItems: true }),
  document: type(22, 'documents'),
  gallery: type(29, 'galleries'),
  application: type(30, 'applications'),
  audio: type(31, 'audio', { takesFile: true }),
  video: type(32, 'videos', { takesFile: true }),
  link: type(33, 'links'),
  card: type(34, 'cards'),
} as const satisfies Record<string, ObjectTypeTraits>

export type ObjectTypeName = keyof typeof OBJECT_TYPE_TRAITS
export const OBJECT_TYPE_NAMES = Object.keys(OBJECT_TYPE_TRAITS) as ObjectTypeName[]

export const isObjectType = (name: string): name is ObjectTypeName => Object.hasOwn(OBJECT_TYPE_TRAITS, name)

/** The traits of a type name; those of no type (every flag false) for a name that is none. */
const NO_TYPE: ObjectTypeTraits = type(0, '', { writableByDefault: false })
export const traitsOf = (name: string): ObjectTypeTraits => (isObjectType(name) ? OBJECT_TYPE_TRAITS[name] : NO_TYPE)

/** The types whose objects may carry a file: image, video, audio, b_e_file. */
export type MediaTypeName = { [K in ObjectTypeName]: typeof OBJECT_TYPE_TRAITS[K] extends { takesFile: true } ? K : never }[ObjectTypeName]
export const MEDIA_TYPES = OBJECT_TYPE_NAMES.filter((t) => OBJECT_TYPE_TRAITS[t].takesFile) as MediaTypeName[]
export const isMediaType = (name: string): name is MediaTypeName => traitsOf(name).takesFile

/** Plural endpoint name → type name. */
export const TYPE_BY_PLURAL: Readonly<Record<string, ObjectTypeName>> = Object.fromEntries(
  OBJECT_TYPE_NAMES.map((t) => [OBJECT_TYPE_TRAITS[t].plural, t]),
)

/** An object as a path or a body names it (decisions §4): by id, or by nickname. */
export type ObjectRef = { id: number } | { nickname: string }

/**
 * `{object_id}` as given: all digits → an id (1 … 2^53−1), anything else → a nickname, taken as it is (no
 * trimming: ` 5` is a nickname). Null for an id out of range or an empty reference. The one rule, for the
 * gateway's routing and for the objects service whoever calls it.
 */
export function parseObjectRef (raw: string): ObjectRef | null {
  if (raw === '') return null
  if (!/^[0-9]+$/.test(raw)) return { nickname: raw }
  const id = Number(raw)
  return id >= 1 && id <= Number.MAX_SAFE_INTEGER ? { id } : null
}
