/** A single byte range as GetOriginal carries it (parsed by the gateway, still hostile). */
export interface RangeRequest {
  range_start?: number | undefined
  range_end?: number | undefined
  suffix_length?: number | undefined
}

export type RangeAnswer =
  | { kind: 'full' }
  | { kind: 'partial', start: number, end: number }
  | { kind: 'unsatisfiable' }

const isIndex = (n: number | undefined): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0

/**
 * RFC 9110 §14: a range against a file of `size` bytes → inclusive start/end, the whole file, or
 * unsatisfiable. A range that is not one (negative, end before start, both forms at once) is ignored.
 */
export function resolveRange (req: RangeRequest, size: number): RangeAnswer {
  const { range_start: start, range_end: end, suffix_length: suffix } = req
  if (start === undefined && suffix === undefined) return { kind: 'full' }
  if (start !== undefined && suffix !== undefined) return { kind: 'full' }
  if (suffix !== undefined) {
    if (!isIndex(suffix)) return { kind: 'full' }
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 }
  }
  if (!isIndex(start) || (end !== undefined && (!isIndex(end) || end < start))) return { kind: 'full' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'partial', start, end: end === undefined ? size - 1 : Math.min(end, size - 1) }
}

/** If-Range: the range applies only when the client's validator is the current entity tag. */
export function rangeApplies (ifRange: string, etag: string): boolean {
  return ifRange === '' || ifRange === etag
}
