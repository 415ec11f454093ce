import { COMPONENT_SCHEMAS, ERROR_CODES, Envelope, MEDIA_TYPES, ObjectWriteBody, type TSchema } from '@content/api-schema'
import { present } from '@content/platform'
import type { RouteTable } from '../routing/compile.js'
import { PATH_PARAMS } from '../routing/path-params.js'
import type { CompiledRoute } from '../routing/route-types.js'
import type { Operation, Success } from './operations.js'
import { grammarParameters, IDEMPOTENCY_KEY_PARAMETER, QUERY_PARAMETERS, REPLAYED_HEADER } from './parameters.js'

type Json = Record<string, unknown>

const ERROR = { $ref: '#/components/responses/Error' }
/** What each operation tag groups, shown by documentation tools beside the tag. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  API: 'The endpoint listing, this document and its reference pages',
  Auth: 'Login, token refresh and revocation, the logged-in user',
  Objects: 'Content objects: read, create, update, trash, preview',
  Revisions: 'Earlier versions of an object\'s own fields',
  Trash: 'Trashed objects: list, restore, purge',
  Tree: 'The publication tree: children, contents, sections, descendants, siblings',
  Relations: 'Named relations between objects',
  Media: 'Uploads, original files, posters and thumbnails',
  Custom: 'Endpoints this deployment adds',
  Changes: 'Live changes as Server-Sent Events',
}
/** The served OpenAPI document: its own shape is the OpenAPI 3.1 specification's. */
const DOCUMENT_SCHEMA = {
  type: 'object', required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
  description: 'an OpenAPI 3.1 document',
}
const ANONYMOUS_OR_TOKEN = [{}, { bearer: [] }, { access_token: [] }]
const TOKEN = [{ bearer: [] }, { access_token: [] }]

/** JSON of a schema without TypeBox's symbol keys. */
const plain = (schema: TSchema | Readonly<Json>): Json => JSON.parse(JSON.stringify(schema)) as Json

function success (s: Success, op: Operation): [string, Json] {
  if ('document' in s) return [String(s.status), { description: 'the OpenAPI document', content: { 'application/json': { schema: DOCUMENT_SCHEMA } } }]
  if ('bytes' in s) {
    const headers = s.headers ? { headers: Object.fromEntries(Object.entries(s.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) } : {}
    return [String(s.status), { description: s.description, ...headers, content: Object.fromEntries(s.bytes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) }]
  }
  if (s.status === 204) return ['204', { description: 'done; no body' }]
  const named = {
    ...(s.location ? { Location: { description: 'the created resource', schema: { type: 'string', format: 'uri' } } } : {}),
    ...(op.idempotent ? REPLAYED_HEADER : {}),
  }
  const headers = Object.keys(named).length > 0 ? { headers: named } : {}
  const description = s.status === 201 ? 'created' : 'success'
  return [String(s.status), { description, ...headers, content: { 'application/json': { schema: plain(Envelope(s.data, s.paged)) } } }]
}

/** `POST /objects` takes only the types this configuration lets clients write. */
function requestBody (op: Operation, table: RouteTable<unknown>): Json | undefined {
  if (op.rawBody) {
    const types = MEDIA_TYPES.filter((t) => table.writableTypes.includes(t))
    return { required: true, description: `the file's bytes (object types: ${types.join(', ') || 'none writable'})`, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
  }
  if (!op.body) return undefined
  const schema = plain(op.body)
  if (op.body === ObjectWriteBody) {
    const data = (schema.properties as Json).data as { properties: Json }
    data.properties.object_type = { type: 'string', enum: [...table.writableTypes] }
  }
  return { required: true, content: { 'application/json': { schema } } }
}

/** Request headers a route reads beside the usual ones. */
const HEADERS: Readonly<Record<string, Json>> = {
  'changes.stream': {
    name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', maxLength: 200 },
    description: 'the `id` of the last event received: the stream resumes after it (an EventSource sends it on reconnecting); wins over `after`',
  },
}

function parameters (at: CompiledRoute<unknown>): Json[] {
  const names = [...at.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => present(m[1], 'a path parameter name'))
  const path = names.map((name) => {
    const { schema, description } = present(PATH_PARAMS[name], `the path parameter ${name}`)
    return { name, in: 'path', required: true, schema, description }
  })
  const query = (at.spec.accepts ?? at.spec.ownQuery ?? []).filter((name) => name !== 'access_token')
    .map((name) => ({ name, in: 'query', required: false, ...QUERY_PARAMETERS[name] }))
  const grammar = at.spec.grammar === undefined ? [] : grammarParameters(at.spec.grammar)
  const header = HEADERS[at.spec.name]
  return [...path, ...query, ...grammar, ...(at.spec.operation.idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : []), ...(header ? [header] : [])]
}

function operation (at: CompiledRoute<unknown>, table: RouteTable<unknown>): Json {
  const op = at.spec.operation
  const responses: Json = Object.fromEntries(op.success.map((s) => success(s, op)))
  if (op.etag) responses['304'] = { description: 'not modified (If-None-Match)' }
  // every 4xx and 5xx has the one error body: `4XX` names the client's errors, `default` the rest
  responses['4XX'] = ERROR
  responses.default = ERROR
  const body = requestBody(op, table)
  return {
    operationId: `${at.method.toLowerCase()}${at.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    parameters: parameters(at),
    ...(body ? { requestBody: body } : {}),
    responses,
    security: op.auth ? TOKEN : ANONYMOUS_OR_TOKEN,
  }
}

export interface DocumentOptions {
  /** the version of the running gateway */
  version: string
}

/** The OpenAPI 3.1 document of the route table in force: what `GET {base}/openapi.json` serves. */
export function openapiDocument (table: RouteTable<unknown>, options: DocumentOptions): Json {
  const paths: Record<string, Json> = {}
  for (const at of table.routes) {
    const byMethod = paths[at.path] ?? {}
    paths[at.path] = byMethod
    byMethod[at.method.toLowerCase()] = operation(at, table)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Content objects API',
      version: options.version,
      description: 'A publication tree of content objects, their relations, media files and thumbnails. Every 2xx JSON answer is an envelope; every error has the body of `ErrorBody`, whose `more_info` links to the code on the errors page.',
    },
    servers: [{ url: table.basePath || '/' }],
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(table.routes.map((r) => r.spec.operation.tag))]
      .map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, plain(schema)])),
      responses: {
        Error: {
          description: `an error (decisions §2): ${[...new Set(ERROR_CODES.map((e) => e.status))].sort().join(', ')}`,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token from POST /auth' },
        access_token: { type: 'apiKey', in: 'query', name: 'access_token', description: 'the access token as a query parameter' },
      },
    },
  }
}
