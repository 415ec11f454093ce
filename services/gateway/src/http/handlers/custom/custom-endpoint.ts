import type { Method } from '../../../routing/defaults.js'
import type { Caller } from '../../auth.js'

/** What a custom endpoint sees of a request. */
export interface CustomRequest {
  method: Method
  /** path segments after the endpoint name */
  segments: string[]
  query: URLSearchParams
  /** parsed JSON body, undefined when none */
  body: unknown
  /** the verified caller; user 0 = anonymous */
  caller: Caller
}

/** Returns the envelope's `data`; throw HttpError/DomainError for errors. */
export type CustomHandler = (request: CustomRequest) => unknown

/** A custom endpoint module: a name and either one handler for every method or one per method. */
export type CustomEndpointModule =
  | { readonly name: string, readonly all: CustomHandler }
  | { readonly name: string, readonly methods: Partial<Record<Method, CustomHandler>> }
