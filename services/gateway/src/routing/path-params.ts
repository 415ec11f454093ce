import { MEDIA_TYPES, parseObjectRef } from '@content/api-schema'
import { routeError, type RouteError, type RouteParams } from './route-types.js'

/** A path parameter: where handlers find it, how its segment is read, and how the OpenAPI document describes it. */
export interface PathParam {
  key: keyof RouteParams
  /** the segment's value, or the 400 it answers; absent: the decoded segment as it is */
  parse?: (raw: string) => string | number | RouteError
  schema: Record<string, unknown>
  description: string
}

const DIGITS = /^[0-9]+$/


/** `{object_id}` by the API's one rule (parseObjectRef): an id in canonical form, or a nickname. */
export function parseObjectId (raw: string): string | RouteError {
  const ref = parseObjectRef(raw)
  if (ref === null) return routeError('INVALID_OBJECT_ID', `object id ${raw} is out of range (1 to ${Number.MAX_SAFE_INTEGER})`)
  return 'id' in ref ? String(ref.id) : ref.nickname
}

/** `{related_id}` / `{child_id}`: positive integers only. */
const positiveInt = (name: string) => (raw: string): number | RouteError => {
  const id = DIGITS.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(id) || id <= 0) return routeError('INVALID_PARAMETER', `${name} must be a positive integer`, { details: { parameter: name } })
  return id
}

/** Every path parameter a route template may name. */
export const PATH_PARAMS: Readonly<Record<string, PathParam>> = {
  object_id: { key: 'objectId', parse: parseObjectId, schema: { type: 'string', pattern: '^[^/]+$' }, description: 'an object id (1 to 2^53−1) or a nickname' },
  relation_name: { key: 'relationName', schema: { type: 'string' }, description: 'a relation name valid for the object\'s type' },
  related_id: { key: 'relatedId', parse: positiveInt('related_id'), schema: { type: 'integer', minimum: 1 }, description: 'the related object\'s id' },
  revision: { key: 'revision', parse: positiveInt('revision'), schema: { type: 'integer', minimum: 1 }, description: 'a revision number of the object' },
  child_id: { key: 'childId', parse: positiveInt('child_id'), schema: { type: 'integer', minimum: 1 }, description: 'the child\'s id' },
  refresh_token: { key: 'refreshToken', schema: { type: 'string' }, description: 'the refresh token to revoke' },
  object_type: { key: 'objectType', schema: { type: 'string', enum: [...MEDIA_TYPES] }, description: 'the type of the object the file is for' },
  file_name: { key: 'fileName', schema: { type: 'string', maxLength: 255 }, description: 'the file\'s name' },
  asset: { key: 'asset', schema: { type: 'string' }, description: 'an asset file name' },
  // the rest of a path: custom endpoints' segments, and a thumbnail's key and file
  rest: { key: 'rest', schema: { type: 'string' }, description: 'further path segments' },
  path: { key: 'rest', schema: { type: 'string' }, description: 'the thumbnail\'s path' },
  key: { key: 'rest', schema: { type: 'string' }, description: 'the content key of the image, or `placeholder`' },
  file: { key: 'rest', schema: { type: 'string', pattern: '^[0-9]+x[0-9]+\\.(jpg|png)$' }, description: '`{width}x{height}.{ext}`' },
}

/** A template segment: a literal, a `{param}`, or a last `{param…}` taking the rest of the path. */
export type TemplateSegment =
  | { kind: 'literal', value: string }
  | { kind: 'param', name: string }
  | { kind: 'rest', name: string }

const PARAM = /^\{([a-z_]+)(…)?\}$/

/** The segments of a template below the base path; an unknown parameter is a bug of the table. */
export function templateSegments (path: string): TemplateSegment[] {
  return path.split('/').filter(Boolean).map((segment) => {
    const m = PARAM.exec(segment)
    if (!m) return { kind: 'literal', value: segment }
    const name = m[1] as string
    if (PATH_PARAMS[name] === undefined) throw new Error(`route template ${path}: unknown parameter {${name}}`)
    return m[2] ? { kind: 'rest', name } : { kind: 'param', name }
  })
}
