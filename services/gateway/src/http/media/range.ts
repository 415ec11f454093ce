/** One byte range of a `Range` header, in the fields GetOriginalRequest carries. */
export type ByteRange =
  | { range_start: number, range_end?: number }
  | { suffix_length: number }

// at most 15 digits: every value stays an exact integer; a longer one is no range the store can satisfy
const SINGLE = /^bytes=([0-9]{0,15})-([0-9]{0,15})$/i

/**
 * `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` (RFC 9110 §14.1.2). Anything else — another unit, several
 * ranges, `b < a`, garbage — is ignored, which means the whole file (RFC 9110 §14.2 allows ignoring Range).
 * Whether the range fits the file is the poster service's question (416 there).
 */
export function parseRange (header: string | string[] | undefined): ByteRange | undefined {
  if (typeof header !== 'string') return undefined
  const match = SINGLE.exec(header.trim())
  if (!match) return undefined
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return undefined
  if (first === '') return { suffix_length: Number(last) }
  const start = Number(first)
  if (last === '') return { range_start: start }
  const end = Number(last)
  return end < start ? undefined : { range_start: start, range_end: end }
}
