import { Type, type TSchema } from '@sinclair/typebox'
import { OBJECT_TYPE_NAMES } from './object-types.js'

const strict = { additionalProperties: false } as const
const Id = Type.Integer({ minimum: 1 })
const Priority = Type.Integer({ minimum: 0, maximum: 2_147_483_647 })
const Params = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])
const Text = Type.Union([Type.String(), Type.Null()])
const IsoDate = Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
const Data = <T extends TSchema>(data: T) => Type.Object({ data }, { ...strict, required: ['data'] })

/** POST /auth: the password grant (default) or the refresh grant. */
export const LoginBody = Type.Union([
  Type.Object({ grant_type: Type.Optional(Type.Literal('password')), username: Type.String(), password: Type.String() }, strict),
  Type.Object({ grant_type: Type.Literal('refresh_token'), refresh_token: Type.String() }, strict),
])

const RelationItem = Type.Object({ related_id: Id, priority: Type.Optional(Type.Union([Priority, Type.Null()])), params: Type.Optional(Params) }, strict)

/** POST /objects: create (needs object_type and parents or relations) or update (id). Spec 2.11, decisions §4, §12. */
export const ObjectWriteBody = Data(Type.Object({
  id: Type.Optional(Type.Union([Id, Type.String({ minLength: 1, description: 'a nickname' })])),
  object_type: Type.Optional(Type.Union(OBJECT_TYPE_NAMES.map((t) => Type.Literal(t)))),
  parents: Type.Optional(Type.Array(Id)),
  relations: Type.Optional(Type.Record(Type.String(), Type.Array(RelationItem))),
  upload_token: Type.Optional(Type.String({ description: 'from POST /files: attaches the uploaded file' })),
  title: Type.Optional(Text), description: Type.Optional(Text), subject: Type.Optional(Text),
  abstract: Type.Optional(Text), body: Type.Optional(Text), note: Type.Optional(Text),
  nickname: Type.Optional(Type.String()), lang: Type.Optional(Type.String({ maxLength: 16 })),
  rights: Type.Optional(Type.String()), license: Type.Optional(Type.String()), creator: Type.Optional(Type.String()),
  publisher: Type.Optional(Type.String()), comments: Type.Optional(Type.String()), valid: Type.Optional(Type.Boolean()),
  start_date: Type.Optional(IsoDate), end_date: Type.Optional(IsoDate), publication_date: Type.Optional(IsoDate),
  custom_properties: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
  languages: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.String()))),
  geo_tags: Type.Optional(Type.Array(Type.Object({
    title: Type.Optional(Type.String()), address: Type.Optional(Type.String()),
    latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }),
    gmaps_lookats: Type.Optional(Type.Union([Type.Object({
      zoom: Type.Optional(Type.Integer()), mapType: Type.Optional(Type.String()), latitude: Type.Optional(Type.Number()),
      longitude: Type.Optional(Type.Number()), range: Type.Optional(Type.Number()),
    }, strict), Type.Null()])),
  }, strict))),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }))),
  categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }))),
  date_items: Type.Optional(Type.Array(Type.Object({
    start_date: Type.Optional(IsoDate), end_date: Type.Optional(IsoDate),
    days: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 6 }))),
  }, strict))),
}, strict))

const OneOrMany = <T extends TSchema>(item: T) => Type.Union([item, Type.Array(item, { minItems: 1, maxItems: 1000 })])

export const RelationsBody = Data(OneOrMany(RelationItem))
export const RelationReplaceBody = Data(Type.Object({ priority: Type.Optional(Type.Union([Priority, Type.Null()])), params: Type.Optional(Params) }, strict))
export const ChildrenBody = Data(OneOrMany(Type.Object({ child_id: Id, priority: Type.Optional(Type.Union([Priority, Type.Null()])) }, strict)))
export const ChildPriorityBody = Data(Type.Object({ priority: Priority }, strict))
