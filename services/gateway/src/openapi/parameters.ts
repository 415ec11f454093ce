import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, OBJECT_TYPE_NAMES } from '@content/api-schema'

type Schema = Record<string, unknown>
interface ParameterInfo { schema: Schema, description: string }

/** Query parameters by name, as `checkQuery` accepts them. */
export const QUERY_PARAMETERS: Readonly<Record<string, ParameterInfo>> = {
  'page': { schema: { type: 'integer', minimum: 1, default: 1 }, description: 'page number' },
  'page_size': { schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }, description: `items per page (at most ${MAX_PAGE_SIZE})` },
  'filter[object_type]': {
    schema: { type: 'string', pattern: `^(${OBJECT_TYPE_NAMES.join('|')})(,(${OBJECT_TYPE_NAMES.join('|')}))*$` },
    description: 'only objects of these types (comma-separated type names)',
  },
  'filter[query]': { schema: { type: 'string', maxLength: 200 }, description: 'only objects whose text fields contain these words' },
  'lang': { schema: { type: 'string', maxLength: 35 }, description: 'a language tag (BCP 47): text fields in that language where translated' },
  'width': { schema: { type: 'integer', minimum: 1, maximum: 4096 }, description: 'thumbnail width in pixels (alone: keeps the aspect ratio)' },
  'height': { schema: { type: 'integer', minimum: 1, maximum: 4096 }, description: 'thumbnail height in pixels (alone: keeps the aspect ratio)' },
  'expires': { schema: { type: 'integer' }, description: 'expiry of a protected image\'s thumbnail URL (Unix seconds), as given' },
  'sig': { schema: { type: 'string' }, description: 'the thumbnail URL\'s signature, as given' },
}

/** The request header of the writes marked `idempotent`, and the header of their replayed answers. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key', in: 'header', required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
  description: 'a key of your choice (1–255 visible ASCII characters) that makes retries safe: the same request again within 24 h gets the first answer (with `Idempotent-Replayed: true`), another request with the key a 422 `IDEMPOTENCY_KEY_REUSED`',
} as const
export const REPLAYED_HEADER = {
  'Idempotent-Replayed': { description: '`true` when this is the first answer to the request\'s Idempotency-Key again', schema: { type: 'string', enum: ['true'] } },
} as const
