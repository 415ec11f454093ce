import { toTransportError } from '@content/platform'
import { HttpError } from '../errors.js'

/**
 * Decisions §2: object-level 401/403/404 (and a path the backend rejects, such as an unknown relation
 * name) outrank a 400 for the body. When the body's shape is wrong, `probe` sends the backend the same
 * write with no items: it checks the caller and the object first and then refuses the empty write
 * with VALIDATION_FAILED, writing nothing. Any other answer of the probe wins over the body's 400.
 */
export async function checkedBody<T> (parse: () => T, probe: () => Promise<unknown>): Promise<T> {
  try {
    return parse()
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 400) throw err
    const backend = await probe().then(() => null, (e: unknown) => e)
    if (backend !== null && outranksBody(backend)) throw backend
    throw err
  }
}

function outranksBody (err: unknown): boolean {
  const t = toTransportError(err)
  return [401, 403, 404].includes(t.httpStatus) || (t.httpStatus === 400 && t.reason !== 'VALIDATION_FAILED')
}
