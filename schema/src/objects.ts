import { Type, type Static, type TSchema, type TString } from '@sinclair/typebox'
import { OWN_FIELDS, withNickname, type FieldKind, type OwnFieldName } from './object-fields.js'
import { OBJECT_TYPE_NAMES } from './object-types.js'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 with the server time zone offset' })
const Url = Type.String({ format: 'uri' })
const Count = Type.Object({ count: Type.Integer({ minimum: 0 }), url: Url }, { additionalProperties: false })
const Text = Nullable(Type.String())

export const GeoTag = Type.Object({
  id: Type.Integer(), object_id: Type.Integer(), title: Type.String(), latitude: Type.Number(), longitude: Type.Number(),
  address: Type.String(),
  gmaps_lookats: Type.Object({
    zoom: Type.Integer(), mapType: Type.String(), latitude: Type.Number(), longitude: Type.Number(), range: Type.Number(),
  }, { additionalProperties: false }),
}, { additionalProperties: false })

export const DateItem = Type.Object({
  start_date: Nullable(DateTime), end_date: Nullable(DateTime),
  days: Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { description: 'weekdays, 0 = Sunday' }),
}, { additionalProperties: false })

/**
 * An included object (decisions §15) is shown as in a relation list: a reference to the document's
 * RelatedObject (which holds relations in turn), not a copy, because the two definitions are recursive.
 */
const IncludedObject = Type.Unsafe<Record<string, unknown>>({ $ref: '#/components/schemas/RelatedObject' })

/** How an answer shows a field of each kind (object-fields.ts). */
const SHOWN = {
  text: Text,
  line: Type.String(),
  lang: Type.String({ description: 'the language of the text fields served (decisions §14)' }),
  flag: Type.Boolean(),
  date: Nullable(DateTime),
} satisfies Record<FieldKind, TSchema>
type OwnFieldProperties = { [F in OwnFieldName]: typeof SHOWN[typeof OWN_FIELDS[F]['kind']] } & { nickname: TString }
const ownFieldProperties = () => Object.fromEntries(withNickname((f) => SHOWN[OWN_FIELDS[f].kind], Type.String())) as OwnFieldProperties

/** Spec 2.3: an object as every read and write answers it (decisions §4, §12, §14). */
export const ContentObject = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  object_type_id: Type.Integer(),
  object_type: Type.Union(OBJECT_TYPE_NAMES.map((t) => Type.Literal(t))),
  ...ownFieldProperties(),
  created: DateTime, modified: DateTime,
  authorized: Type.Boolean({ description: 'the caller may read the object' }),
  free_access: Type.Boolean({ description: 'the object is not protected' }),
  languages: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), { description: 'translated fields by language code' }),
  relations: Type.Record(Type.String(), Type.Object({
    count: Type.Integer({ minimum: 0 }), url: Url,
    objects: Type.Optional(Type.Array(IncludedObject, { description: 'with `include` (decisions §15): the first related objects, each as in a relation list, shaped by `fields`' })),
  }, { additionalProperties: false }), { description: 'each relation with visible related objects' }),
  custom_properties: Type.Record(Type.String(), Type.String()),
  geo_tags: Type.Array(GeoTag),
  tags: Type.Array(Type.Object({ label: Type.String(), name: Type.String() }, { additionalProperties: false })),
  categories: Type.Array(Type.Object({
    id: Type.Integer(), area_id: Nullable(Type.Integer()), label: Type.String(), name: Type.String(),
  }, { additionalProperties: false })),
  date_items: Type.Optional(Type.Array(DateItem, { description: 'events only' })),
  uri: Type.Optional(Nullable(Url)),
  name: Type.Optional(Text),
  mime_type: Type.Optional(Text),
  file_size: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  width: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  height: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  children: Type.Optional(Type.Object({
    count: Type.Integer({ minimum: 0 }), url: Url, contents: Count, sections: Count,
  }, { additionalProperties: false, description: 'sections and the publication only' })),
}, { additionalProperties: false, description: 'media fields (uri … file_size) on image, video, audio and b_e_file; width and height on images' })
export type ContentObject = Static<typeof ContentObject>

/** The relation of an item in a relation list. */
export const RelationMeta = Type.Object({
  priority: Nullable(Type.Integer({ minimum: 0 })),
  params: Nullable(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false })
export type RelationMeta = Static<typeof RelationMeta>

export const RelatedObject = Type.Composite([ContentObject, Type.Object({
  meta: Type.Object({ relation: RelationMeta }, { additionalProperties: false }),
})], { additionalProperties: false })
export type RelatedObject = Static<typeof RelatedObject>

/** An item of the trash list (decisions §16): the object as it was when trashed, when and by whom. */
export const TrashedObject = Type.Composite([ContentObject, Type.Object({
  meta: Type.Object({
    trash: Type.Object({ deleted: Type.String({ format: 'date-time' }), user_id: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  }, { additionalProperties: false }),
})], { additionalProperties: false })
export type TrashedObject = Static<typeof TrashedObject>
/**
 * An object as the API document describes it: every field but `id` and `object_type` may be left out by
 * `fields` (decisions §15); without `fields` an answer has them all (ContentObject, the type the gateway
 * builds).
 */
export const ShownObject = Type.Composite([
  Type.Pick(ContentObject, ['id', 'object_type']),
  Type.Partial(Type.Omit(ContentObject, ['id', 'object_type'])),
], { additionalProperties: false, description: `${ContentObject.description}; \`fields\` keeps only the fields it names, with id and object_type` })

export const ShownRelatedObject = Type.Composite([ShownObject, Type.Object({
  meta: Type.Object({ relation: RelationMeta }, { additionalProperties: false }),
})], { additionalProperties: false })
