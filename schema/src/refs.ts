import { Type, type Static, type TSchema } from '@sinclair/typebox'

/**
 * A reference to a schema of the OpenAPI document's `components.schemas`, typed as the schema itself:
 * answers that hold objects point at one definition instead of repeating it.
 */
export const ref = <T extends TSchema>(name: string, _schema: T) => Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${name}` })
