import { Type, type TSchema } from '@sinclair/typebox'
import { objectWriteJsonSchema } from './object-body.js'
import { bodyJsonSchema, childItemData, childPriorityData, oneOrMany, relationItemData, relationReplaceData } from './write-bodies.js'

const strict = { additionalProperties: false } as const
const Id = Type.Integer({ minimum: 1 })
const Data = <T extends TSchema>(data: T) => Type.Object({ data }, { ...strict, required: ['data'] })

/** POST /auth: the password grant (default) or the refresh grant. */
export const LoginBody = Type.Union([
  Type.Object({ grant_type: Type.Optional(Type.Literal('password')), username: Type.String(), password: Type.String() }, strict),
  Type.Object({ grant_type: Type.Literal('refresh_token'), refresh_token: Type.String() }, strict),
])

/** The write bodies: the JSON Schemas generated from the schemas that validate them (object-body.ts, write-bodies.ts). */
type JsonSchema = Readonly<Record<string, unknown>>
export const ObjectWriteBody: JsonSchema = objectWriteJsonSchema()
export const RelationsBody: JsonSchema = bodyJsonSchema(oneOrMany(relationItemData))
export const RelationReplaceBody: JsonSchema = bodyJsonSchema(relationReplaceData)
export const ChildrenBody: JsonSchema = bodyJsonSchema(oneOrMany(childItemData))
export const ChildPriorityBody: JsonSchema = bodyJsonSchema(childPriorityData)

/** POST /trash/{object_id}/restore: optional; `parents` places the object anew (its own are gone). */
export const TrashRestoreBody = Data(Type.Object({ parents: Type.Optional(Type.Array(Id, { minItems: 1 })) }, strict))
