import type { Filter, FilterValue } from './types.js'

type Scalar = string | number | boolean
/** Query values the client takes: scalars, lists (comma-joined) and the nested `filter` object. */
export type QueryInput = Readonly<Record<string, Scalar | readonly (string | number)[] | Filter | undefined>>

const text = (value: FilterValue): string => Array.isArray(value) ? value.join(',') : String(value)

/** `filter[a][b]=v` pairs of a filter, `or` groups as `filter[or][<i>][…]` (decisions §15). */
function filterPairs (prefix: string, value: unknown, out: [string, string][]): void {
  if (value === undefined) return
  if (Array.isArray(value) && value.some((v) => typeof v === 'object' && v !== null)) {
    for (const [i, group] of value.entries()) filterPairs(`${prefix}[${i}]`, group, out)
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) filterPairs(`${prefix}[${key}]`, inner, out)
  } else {
    out.push([prefix, text(value as FilterValue)])
  }
}

/** The query string of a call (`?…`, or '' when empty); keys keep their order. */
export function queryString (query: QueryInput | undefined): string {
  if (!query) return ''
  const pairs: [string, string][] = []
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (key === 'filter') filterPairs('filter', value, pairs)
    else pairs.push([key, text(value as FilterValue)])
  }
  return pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`
}

/** A path from segments, each percent-encoded (an object nickname or a file name may hold any character). */
export const pathOf = (...segments: (string | number)[]): string => segments.map((s) => `/${encodeURIComponent(String(s))}`).join('')
