import {
  CHANGE_TYPES, DEFAULT_INCLUDE_LIMIT, DEFAULT_PAGE_SIZE, FILTER_FIELDS, MAX_CONDITIONS, MAX_INCLUDE_LIMIT, MAX_INCLUDES, MAX_PAGE_SIZE,
  MAX_SORT_KEYS, OBJECT_FIELDS, OBJECT_TYPE_NAMES, RELATION_NAMES, SORT_FIELDS, type ListKind,
} from '@content/api-schema'

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
  'token': { schema: { type: 'string', minLength: 1 }, description: 'the preview URL\'s signed token, as given' },
  // decisions §17: the parameters of GET /changes
  'filter[parent]': {
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    description: 'only events of objects directly under this one (an id or a nickname; one the caller may not read matches nothing)',
  },
  'filter[ancestor]': {
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    description: 'only events of objects anywhere below this one (an id or a nickname; one the caller may not read matches nothing)',
  },
  'events': {
    schema: { type: 'string', pattern: `^(${CHANGE_TYPES.join('|').replaceAll('.', '\\.')})(,(${CHANGE_TYPES.join('|').replaceAll('.', '\\.')}))*$` },
    description: 'only these event types (comma-separated)',
  },
  'status': { schema: { type: 'string', enum: ['draft'] }, description: 'also the events of drafts the caller may write' },
  'after': { schema: { type: 'string' }, description: 'resume after this position (an event\'s `id`); Last-Event-ID wins over it; a value that is not a position the store issued opens the stream with `event: reset`' },
  'ticket': { schema: { type: 'string' }, description: 'a single-use ticket from `POST /changes/tickets`, for an EventSource, which cannot send headers' },
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

const fieldTable = Object.entries(FILTER_FIELDS).map(([field, rule]) => `\`${field}\` (${rule.ops.join(', ')})`).join('; ')
const relations = [...RELATION_NAMES].join('|')

/**
 * The query grammar of decisions §15, described from the tables that validate it (schema/src/list-query.ts):
 * the list kinds take every parameter, the single read `fields` and `include` only.
 */
export function grammarParameters (kind: ListKind): Record<string, unknown>[] {
  const shape = [
    {
      name: 'fields', in: 'query', required: false, schema: { type: 'string', pattern: `^(${OBJECT_FIELDS.join('|')})(,(${OBJECT_FIELDS.join('|')}))*$` },
      description: 'only these top-level fields of each object (comma-separated); `id` and `object_type` always remain',
    },
    {
      name: 'include', in: 'query', required: false, schema: { type: 'string', pattern: `^(${relations})(\\.(${relations}))?(,(${relations})(\\.(${relations}))?){0,${MAX_INCLUDES - 1}}$` },
      description: `up to ${MAX_INCLUDES} relations (a dotted path of two includes on the included objects): each object's \`relations.<name>.objects\` lists the first related objects the caller may read`,
    },
    {
      name: 'include_limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_INCLUDE_LIMIT, default: DEFAULT_INCLUDE_LIMIT },
      description: 'related objects per included relation, at each level. A page whose worst case (`page_size` × the product of `include_limit` over each path\'s steps, summed over the paths; a single read is a page of one) passes `INCLUDE_BUDGET` (5,000 objects by default) is refused, naming `include_limit`',
    },
  ]
  // decisions §16: every read that takes the grammar takes status=draft
  const status = {
    name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['draft'] },
    description: '`draft`: a caller with write rights also sees the drafts it may write (the answer is then `Cache-Control: private, no-store`); without write rights it changes nothing',
  }
  if (kind === 'single') return [...shape, status]
  const sortKeys = SORT_FIELDS.filter((k) => kind !== 'objects' || k !== 'priority').join('|')
  return [
    {
      name: 'filter', in: 'query', required: false, style: 'deepObject', explode: true,
      schema: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] } },
      description: `\`filter[<field>]=<value>\` (eq) or \`filter[<field>][<operator>]=<value>\`, conditions AND; \`filter[or][<0-9>][<field>][<operator>]\` groups OR together; at most ${MAX_CONDITIONS} conditions. Fields (operators): ${fieldTable}; \`custom_properties.<name>\` (eq, neq, in, nin, lt, lte, gt, gte, null, contains, starts_with); \`related.<relation>\` (eq, neq, in, nin). Ids: any integer from −(2^53−1) to 2^53−1 (a bound, such as \`filter[id][gt]=0\`). Dates: YYYY-MM-DD, ISO 8601 with a zone, \`now\`, \`now-<n><s|m|h|d>\`, \`now+<n><s|m|h|d>\`, within ±100,000,000 days of 1970. An empty list item (\`a,,b\`, \`a,\`) is refused.`,
    },
    {
      name: 'sort', in: 'query', required: false, schema: { type: 'string', pattern: `^-?(${sortKeys})(,-?(${sortKeys})){0,${MAX_SORT_KEYS - 1}}$` },
      description: `up to ${MAX_SORT_KEYS} keys, \`-\` for descending; nulls last, ties by id${kind === 'objects' ? '' : '; `priority` is the list\'s own order'}; \`relevance\` needs filter[query]`,
    },
    {
      name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: 2000, pattern: '^[A-Za-z0-9_.-]+$' },
      description: '`start`, then `paging.next_cursor` of the page before (instead of `page`): every object untouched during the walk comes exactly once',
    },
    { name: 'count', in: 'query', required: false, schema: { type: 'string', enum: ['exact', 'none'], default: 'exact' }, description: '`none` leaves `total` and `total_pages` out and skips counting' },
    ...shape,
    status,
  ]
}
