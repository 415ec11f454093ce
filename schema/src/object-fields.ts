/**
 * An object's own fields (spec 2.3): what a write sets and every read shows, beside its identity (id,
 * type, nickname), its bookkeeping (status, created, …) and its extras (translations, tags, …). The one
 * list the write schema, the answer's schema, the objects service's records and both stores, the wire
 * mapping and the gateway's JSON read: a field added here (and to the proto's `ContentObject`) is
 * validated, stored, carried and shown.
 */

/**
 * How a field is written, stored and shown: `text` a nullable long text; `line` a short text, never null;
 * `lang` a language code; `flag` a boolean; `date` an instant (ISO 8601 in JSON, epoch ms inside), nullable.
 */
export type FieldKind = 'text' | 'line' | 'lang' | 'flag' | 'date'

interface FieldSpec<K extends FieldKind> {
  readonly kind: K
  readonly default: ValueOf<K>
  /** `filter[query]` looks in it (decisions §3): the stores index it for the search */
  readonly searched?: true
}

type ValueOf<K extends FieldKind> =
  K extends 'text' ? string | null :
    K extends 'line' | 'lang' ? string :
      K extends 'flag' ? boolean :
        number | null

const text: FieldSpec<'text'> = { kind: 'text', default: null }
const searched: FieldSpec<'text'> & { readonly searched: true } = { ...text, searched: true }
const line = (value = ''): FieldSpec<'line'> => ({ kind: 'line', default: value })
const date: FieldSpec<'date'> = { kind: 'date', default: null }

/** In the order the specification lists them (and the stores hold them). */
export const OWN_FIELDS = {
  title: searched, description: searched, subject: text, abstract: text, body: searched, note: text,
  lang: { kind: 'lang', default: 'en' } as FieldSpec<'lang'>,
  rights: line(), license: line(), creator: line(), publisher: line(), comments: line('off'),
  valid: { kind: 'flag', default: true } as FieldSpec<'flag'>,
  start_date: date, end_date: date, publication_date: date,
} as const

export type OwnFieldName = keyof typeof OWN_FIELDS
export const OWN_FIELD_NAMES = Object.keys(OWN_FIELDS) as OwnFieldName[]

/** The values of the own fields, as the domain holds them. */
export type OwnFields = { [F in OwnFieldName]: ValueOf<typeof OWN_FIELDS[F]['kind']> }

/** Every own field at its default: a new object's values where a write leaves them out. */
export const OWN_FIELD_DEFAULTS = Object.fromEntries(OWN_FIELD_NAMES.map((f) => [f, OWN_FIELDS[f].default])) as OwnFields

/**
 * The own fields with `nickname` (identity, not an own field) where spec 2.3 lists it, after the long
 * texts: the order of answers, of the write schema and of the answer's schema.
 */
export function withNickname<T> (own: (field: OwnFieldName) => T, nickname: T): [string, T][] {
  return OWN_FIELD_NAMES.flatMap((f): [string, T][] => (f === 'note' ? [[f, own(f)], ['nickname', nickname]] : [[f, own(f)]]))
}

/** The own fields of a kind, in order. */
export const fieldsOf = (kind: FieldKind): OwnFieldName[] => OWN_FIELD_NAMES.filter((f) => OWN_FIELDS[f].kind === kind)

/** The nullable long texts (`text`): the fields a translation may replace (spec 2.3, decisions §14). */
export type TextFieldName = { [F in OwnFieldName]: typeof OWN_FIELDS[F]['kind'] extends 'text' ? F : never }[OwnFieldName]
export const TRANSLATABLE_FIELDS = fieldsOf('text') as TextFieldName[]

/** The fields `filter[query]` looks in (the `searched` trait), in order: a match is a case-insensitive substring of one. */
export type SearchedFieldName = { [F in OwnFieldName]: typeof OWN_FIELDS[F] extends { searched: true } ? F : never }[OwnFieldName]
export const SEARCHED_FIELDS = OWN_FIELD_NAMES.filter((f) => OWN_FIELDS[f].searched === true) as SearchedFieldName[]
