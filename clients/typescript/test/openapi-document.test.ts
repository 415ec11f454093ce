import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { describe, expect, it } from 'vitest'
import { openapiDocument, openapiTypes, TYPES_FILE } from '../scripts/openapi-sources.mjs'

const document = openapiDocument()

/** src/gen/openapi.ts as the last commit holds it; undefined outside a git checkout. */
function committedTypes (): string | undefined {
  try {
    return execFileSync('git', ['show', 'HEAD:./src/gen/openapi.ts'], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 })
  } catch {
    return undefined
  }
}

describe('the types generated from the OpenAPI document', () => {
  it('are src/gen/openapi.ts (run `npm run build` in clients/typescript after changing the document)', async () => {
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(await openapiTypes(document))
  })

  // the build regenerates the file, so the working copy always matches: the commit is what must
  it('are the committed src/gen/openapi.ts (commit the file the build regenerated)', async (ctx) => {
    const committed = committedTypes()
    if (committed === undefined) ctx.skip('not a git checkout: there is no commit to compare with')
    expect(committed).toBe(await openapiTypes(document))
  })

  it('change when the document changes', async () => {
    const changed = structuredClone(document) as { components: { schemas: { Paging: { properties: Record<string, unknown> } } } }
    changed.components.schemas.Paging.properties.page_total = { type: 'integer' }
    expect(await openapiTypes(changed)).not.toBe(readFileSync(TYPES_FILE, 'utf8'))
  })
})

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** JSON schemas in 2xx JSON answers that say nothing of their shape, by location. */
function vagueSchemas (value: unknown, at: string, out: string[]): string[] {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) vagueSchemas(v, `${at}/${i}`, out)
  if (!isObject(value)) return out
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'schema' || key === 'items' || /\/properties$/.test(at)) {
      const schema = key === 'schema' || key === 'items' ? inner : undefined
      if (isObject(schema)) {
        const says = ['$ref', 'type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not'].some((k) => k in schema)
        const open = schema.type === 'object' && !('properties' in schema || 'patternProperties' in schema || 'additionalProperties' in schema)
        if (!says || open) out.push(`${at}/${key}`)
      }
    }
    vagueSchemas(inner, `${at}/${key}`, out)
  }
  return out
}

describe('the OpenAPI document of the default configuration', () => {
  it('passes the recommended rules of a maintained OpenAPI linter (Redocly) without an error', async () => {
    // the project states no licence, so the info object cannot name one
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } })
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config })
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)
    expect(errors).toEqual([])
    // today it has no warning either; one that appears is shown here
    expect(problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`)).toEqual([])
  })

  it('the linter does fail a broken document', async () => {
    const broken = structuredClone(document) as { components: { schemas: Record<string, unknown> } }
    // every answer with objects points at ContentObject: without it, the references dangle
    delete broken.components.schemas.ContentObject
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config })
    expect(problems.some((p) => p.severity === 'error')).toBe(true)
  })

  it('gives every answer a shape: no empty or open schema where the shape is known', () => {
    const paths = (document as { paths: Json }).paths
    expect(vagueSchemas(paths, '#/paths', [])).toEqual([])
    expect(vagueSchemas((document as { components: Json }).components, '#/components', [])).toEqual([])
    // and the check finds one
    expect(vagueSchemas({ content: { 'application/json': { schema: { type: 'object' } } } }, '#', [])).toHaveLength(1)
  })

  it('describes the answers a client reads: envelopes, paging, errors, tokens, uploads', () => {
    const doc = document as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Json }> }> }>> }
    const jsonOf = (path: string, method: string, status: string) => doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema
    expect(jsonOf('/objects', 'get', '200')).toMatchObject({ required: expect.arrayContaining(['api', 'data', 'method', 'params', 'url', 'paging']) })
    expect(jsonOf('/auth', 'post', '200')).toMatchObject({ properties: { data: { required: ['access_token', 'expires_in', 'refresh_token'] } } })
    expect(jsonOf('/files/{object_type}/{file_name}', 'post', '200')).toMatchObject({ properties: { data: { required: expect.arrayContaining(['upload_token']) } } })
    for (const [, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        expect(op.responses['4XX']).toEqual({ $ref: '#/components/responses/Error' })
        expect(op.responses.default).toEqual({ $ref: '#/components/responses/Error' })
      }
    }
  })
})
