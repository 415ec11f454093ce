export * from './answers.js'
export * from './change-types.js'
export * from './dates.js'
export * from './object-body.js'
export * from './object-fields.js'
export * from './envelope.js'
export * from './error-codes.js'
export * from './file-names.js'
export * from './include-budget.js'
export * from './list-query.js'
export * from './object-types.js'
export * from './objects.js'
export * from './paging.js'
export * from './relation-types.js'
export * from './requests.js'
export * from './write-bodies.js'
export { ref } from './refs.js'

import { ErrorBody, ErrorCodeSchema, Paging } from './envelope.js'
import { ShownObject, ShownRelatedObject, TrashedObject } from './objects.js'

/** The named schemas that `ref()` points at: `components.schemas` of the OpenAPI document. */
export const COMPONENT_SCHEMAS = { ContentObject: ShownObject, RelatedObject: ShownRelatedObject, TrashedObject, Paging, ErrorBody, ErrorCode: ErrorCodeSchema } as const
export type { Static, TSchema } from '@sinclair/typebox'
