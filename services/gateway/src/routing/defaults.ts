import { OBJECT_TYPE_NAMES, OBJECT_TYPE_TRAITS } from '@content/api-schema'

/** Methods the route table knows; anything else (PATCH, …) answers 405. */
export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const
export type Method = typeof METHODS[number]

export const DEFAULT_ENDPOINTS = ['auth', 'changes', 'files', 'me', 'objects', 'poster', 'trash'] as const

/** Path filters under `/objects/{id}/…` that have handlers (spec 4.10, decisions §9). */
export const KNOWN_FILTERS = [
  'relations', 'children', 'contents', 'sections', 'descendants', 'siblings', 'ancestors', 'parents',
] as const
export type FilterName = typeof KNOWN_FILTERS[number]

/** Methods each filter has a handler for; enabling a filter for another method is a config error. */
export const FILTER_HANDLER_METHODS: Readonly<Record<FilterName, readonly Method[]>> = {
  relations: ['GET', 'POST', 'PUT', 'DELETE'],
  children: ['GET', 'POST', 'PUT', 'DELETE'],
  contents: ['GET'],
  sections: ['GET'],
  descendants: ['GET'],
  siblings: ['GET'],
  ancestors: ['GET'],
  parents: ['GET'],
}

/** Spec 4.10 table: filters enabled per method unless the config file replaces a method's list. */
export const DEFAULT_PATH_FILTERS: Readonly<Record<Method, readonly FilterName[]>> = {
  GET: ['relations', 'children', 'contents', 'sections', 'descendants', 'siblings'],
  POST: ['relations', 'children'],
  PUT: ['relations', 'children'],
  DELETE: ['relations', 'children'],
}

/** Every type but the publication's may be written unless the config says otherwise. */
export const DEFAULT_WRITABLE_TYPES: readonly string[] = OBJECT_TYPE_NAMES.filter((t) => OBJECT_TYPE_TRAITS[t].writableByDefault)

/** Paths outside the base path that no endpoint may shadow. */
export const RESERVED_NAMES = ['healthz', 'readyz'] as const

/**
 * Paths under the base path that serve bytes (decisions §12): not endpoints, never listed or
 * blacklisted, and no configured endpoint may take their names.
 */
export const MEDIA_PATHS = ['media', 'thumbnails'] as const

/**
 * Paths under the base path that describe the API: the OpenAPI document and the reference pages. Like
 * the media paths, not endpoints: never blacklisted, and no configured endpoint may take their names.
 */
export const DOC_PATHS = ['openapi.json', 'docs'] as const

export const DEFAULT_BODY_LIMIT = 1024 * 1024
