import type { components, operations } from './gen/openapi.js'

type Schemas = components['schemas']
type JsonAnswer<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }> ? Body : never
/** `data` of an operation's 200 answer. */
export type DataOf<Op extends keyof operations> = JsonAnswer<Op, 200> extends { data: infer D } ? D : never
/** The JSON body of an operation's request. */
export type BodyOf<Op extends keyof operations> =
  operations[Op] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never
/** The query parameters of an operation. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>

export type ContentObject = Schemas['ContentObject']
export type RelatedObject = Schemas['RelatedObject']
export type TrashedObject = Schemas['TrashedObject']
export type Paging = Schemas['Paging']
export type ErrorBody = Schemas['ErrorBody']
export type ErrorCode = Schemas['ErrorCode']
export type ObjectType = ContentObject['object_type']

export type TokenData = DataOf<'postAuth'>
export type TokenStatus = DataOf<'getAuth'>
export type Me = DataOf<'getMe'>
export type Poster = DataOf<'getPosterObjectId'>
export type Upload = DataOf<'postFilesObjectTypeFileName'>
export type RelationSummary = DataOf<'getObjectsObjectIdRelations'>
export type RelationInfo = DataOf<'getObjectsObjectIdRelationsRelationNameRelatedId'>
export type SavedRelation = DataOf<'postObjectsObjectIdRelationsRelationName'>[number]
export type SavedChild = DataOf<'postObjectsObjectIdChildren'>[number]
export type Listing = DataOf<'get'>

/** The fields `POST /objects` takes (create, or update with `id`). */
export type ObjectWrite = BodyOf<'postObjects'>['data']
/** What `objects.create` takes: an object type and its fields. */
export type ObjectCreate = Omit<ObjectWrite, 'id'> & { object_type: NonNullable<ObjectWrite['object_type']> }
/** What `objects.update` takes besides the id. */
export type ObjectUpdate = Omit<ObjectWrite, 'id' | 'object_type'>
export type RelationItem = Extract<BodyOf<'postObjectsObjectIdRelationsRelationName'>['data'], { related_id: number }>
export type ChildItem = Extract<BodyOf<'postObjectsObjectIdChildren'>['data'], { child_id: number }>
export type RelationChange = BodyOf<'putObjectsObjectIdRelationsRelationNameRelatedId'>['data']

/** A filter condition's value: a list is sent comma-separated (`in`, `nin`, `between`, a type list). */
export type FilterValue = string | number | boolean | readonly (string | number)[]
/** `filter[<field>]=<v>` or `filter[<field>][<op>]=<v>` (decisions §15); `or` holds up to ten AND-groups. */
export interface Filter {
  [field: string]: FilterValue | Readonly<Record<string, FilterValue>> | readonly Readonly<Record<string, FilterValue | Readonly<Record<string, FilterValue>>>>[] | undefined
  or?: readonly Readonly<Record<string, FilterValue | Readonly<Record<string, FilterValue>>>>[]
}
type ListQueryOf<Op extends keyof operations> = Omit<QueryOf<Op>, 'filter' | 'filter[object_type]' | 'filter[query]' | 'page' | 'cursor'> & {
  filter?: Filter
  /** where to start: a page number (page paging, the default) */
  page?: number
  /** `true` or `'start'` walks by cursors from the first page; a string from `paging.next_cursor` resumes */
  cursor?: true | string
}
export type ObjectListQuery = ListQueryOf<'getObjects'>
export type TreeListQuery = ListQueryOf<'getObjectsObjectIdChildren'>
export type RelatedListQuery = ListQueryOf<'getObjectsObjectIdRelationsRelationName'>
export type TrashListQuery = Omit<QueryOf<'getTrash'>, 'page'> & { page?: number }
export type ObjectReadQuery = QueryOf<'getObjectsObjectId'>
export type PosterQuery = Pick<QueryOf<'getPosterObjectId'>, 'width' | 'height'>
/** An object in a path: its id, or its nickname. */
export type ObjectRef = number | string
