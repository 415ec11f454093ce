import { Type, type Static } from '@sinclair/typebox'
import { ContentObject, RelatedObject, RelationMeta, TrashedObject } from './objects.js'
import { ref } from './refs.js'

const Url = Type.String({ format: 'uri' })
const strict = { additionalProperties: false } as const

/** `data` of each 2xx JSON answer, by what it holds. */
const Obj = ref('ContentObject', ContentObject)
export const ObjectData = Type.Object({ object: Obj }, strict)
export const ObjectListData = Type.Object({ objects: Type.Array(Obj) }, strict)
export const RelatedListData = Type.Object({ objects: Type.Array(ref('RelatedObject', RelatedObject)) }, strict)
/** A revision of an object's own fields (decisions §16): the fields after the change. */
const Revision = Type.Object({
  revision: Type.Integer({ minimum: 1 }), created: Type.String({ format: 'date-time' }), user_id: Type.Integer({ minimum: 0 }),
  changed: Type.Array(Type.String(), { description: 'the own fields the change set, and `file` when it attached another file' }),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'every own field (title … publication_date) after the change' }),
}, strict)
export const RevisionListData = Type.Object({ revisions: Type.Array(Revision) }, strict)
export const RevisionData = Type.Object({ revision: Revision }, strict)
/** POST /objects/{id}/preview (decisions §16): a URL that reads the object as its writer would, with no token. */
export const PreviewData = Type.Object({
  preview_url: Url, expires: Type.String({ format: 'date-time', description: 'after this the URL answers 401 PREVIEW_TOKEN_EXPIRED' }),
}, strict)
export const TrashListData = Type.Object({ objects: Type.Array(ref('TrashedObject', TrashedObject)) }, strict)
export const RelationSummaryData = Type.Record(Type.String(), Type.Object({ count: Type.Integer({ minimum: 0 }), url: Url }, strict))
export const RelationData = RelationMeta
export const SavedRelationsData = Type.Array(Type.Object({
  related_id: Type.Integer({ minimum: 1 }), priority: Type.Integer({ minimum: 0 }),
  params: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
}, strict))
export const SavedChildrenData = Type.Array(Type.Object({ child_id: Type.Integer({ minimum: 1 }), priority: Type.Integer({ minimum: 0 }) }, strict))
export const PriorityData = Type.Object({ priority: Type.Integer({ minimum: 0 }) }, strict)
export const ListingData = Type.Record(Type.String(), Url, { description: 'each available endpoint and page → its URL' })

export const TokenData = Type.Object({
  access_token: Type.String(), expires_in: Type.Integer({ minimum: 0, description: 'seconds' }), refresh_token: Type.String(),
}, strict)
export const TokenStatusData = Type.Object({ access_token: Type.String(), expires_in: Type.Integer({ minimum: 0 }) }, strict)
/** Decisions §17: `POST /changes/tickets` — a single-use ticket for `GET /changes?ticket=…`. */
export const StreamTicketData = Type.Object({ ticket: Type.String(), expires_in: Type.Integer({ minimum: 1 }) }, strict)
export const MeData = Type.Object({
  user: Type.Object({
    id: Type.Integer(), username: Type.String(), name: Type.String(), email: Type.String(),
    groups: Type.Array(Type.String()), created: Type.String({ format: 'date-time' }),
  }, strict),
  object: Type.Optional(Obj),
}, strict)
export const PosterData = Type.Object({ id: Type.Integer({ minimum: 1 }), uri: Url }, strict)
export const UploadData = Type.Object({
  upload_token: Type.String(), expires_in: Type.Integer({ minimum: 0, description: 'seconds' }),
  name: Type.String(), mime_type: Type.String(), file_size: Type.Integer({ minimum: 1 }),
  width: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]), height: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
}, strict)

export type ObjectData = Static<typeof ObjectData>
export type ObjectListData = Static<typeof ObjectListData>
export type TokenData = Static<typeof TokenData>
export type MeData = Static<typeof MeData>
export type PosterData = Static<typeof PosterData>
export type UploadData = Static<typeof UploadData>
