import { HttpError } from '../errors.js'
import type { Handler } from '../context.js'

/** `GET {base}/docs`: the reference page of the live OpenAPI document. */
export const docsPage: Handler = async () => {
  throw new HttpError(404, 'ENDPOINT_NOT_FOUND', 'the reference page is not built yet')
}

/** `GET {base}/docs/assets/{file}`: the reference page's scripts and styles, from the npm package. */
export const docsAsset: Handler = async () => {
  throw new HttpError(404, 'ENDPOINT_NOT_FOUND', 'the reference page is not built yet')
}
