import { Type, type TSchema } from '@sinclair/typebox'
import { MAX_PRIORITY, objectWriteJsonSchema } from './object-body.js'

const strict = { additionalProperties: false } as const
const Id = Type.Integer({ minimum: 1 })
const Priority = Type.Integer({ minimum: 0, maximum: MAX_PRIORITY })
const Params = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])
const Data = <T extends TSchema>(data: T) => Type.Object({ data }, { ...strict, required: ['data'] })

/** POST /auth: the password grant (default) or the refresh grant. */
export const LoginBody = Type.Union([
  Type.Object({ grant_type: Type.Optional(Type.Literal('password')), username: Type.String(), password: Type.String() }, strict),
  Type.Object({ grant_type: Type.Literal('refresh_token'), refresh_token: Type.String() }, strict),
])

const RelationItem = Type.Object({ related_id: Id, priority: Type.Optional(Type.Union([Priority, Type.Null()])), params: Type.Optional(Params) }, strict)

/** POST /objects: the JSON Schema generated from the schema that validates it (object-body.ts). */
export const ObjectWriteBody: Readonly<Record<string, unknown>> = objectWriteJsonSchema()

const OneOrMany = <T extends TSchema>(item: T) => Type.Union([item, Type.Array(item, { minItems: 1, maxItems: 1000 })])

export const RelationsBody = Data(OneOrMany(RelationItem))
export const RelationReplaceBody = Data(Type.Object({ priority: Type.Optional(Type.Union([Priority, Type.Null()])), params: Type.Optional(Params) }, strict))
export const ChildrenBody = Data(OneOrMany(Type.Object({ child_id: Id, priority: Type.Optional(Type.Union([Priority, Type.Null()])) }, strict)))
/** POST /trash/{object_id}/restore: optional; `parents` places the object anew (its own are gone). */
export const TrashRestoreBody = Data(Type.Object({ parents: Type.Optional(Type.Array(Id, { minItems: 1 })) }, strict))
export const ChildPriorityBody = Data(Type.Object({ priority: Priority }, strict))
