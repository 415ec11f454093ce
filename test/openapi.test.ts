import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { ERROR_CODES } from '@content/api-schema'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract, type Contract } from './support/contract.js'
import { checkAnswersOf } from './support/contract-fetch.js'
import { http, removeDir, ROOT, startSystem, type RunningSystem } from './support/system.js'


async function validate (doc: unknown) {
  const validator = new Validator()
  const result = await validator.validate(doc as Record<string, unknown>)
  return { ...result, version: validator.version }
}

describe('GET /openapi.json on the default configuration', () => {
  let system: RunningSystem
  // biome-ignore lint/suspicious/noExplicitAny: the served OpenAPI document, read by path as JSON
  let doc: any
  let contract: Contract

  beforeAll(async () => {
    system = await startSystem()
    const res = await http(system.base, 'GET', '/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('etag')).toBeTruthy()
    doc = res.body
    contract = compileContract(doc)
  })
  afterAll(async () => {
    await system.stop()
    removeDir(system.dataDir)
  })

  it('is a valid OpenAPI 3.1 document (independent validator)', async () => {
    const result = await validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result).toMatchObject({ valid: true, version: '3.1' })
  })

  it('describes every endpoint and filter the default route table answers, each operation with an id and a summary', () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string, summary?: string }>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    for (const expected of [
      'GET /', 'GET /auth', 'POST /auth', 'DELETE /auth/{refresh_token}', 'GET /me', 'GET /poster/{object_id}',
      'POST /files/{object_type}/{file_name}', 'GET /objects', 'POST /objects', 'GET /objects/{object_id}', 'DELETE /objects/{object_id}',
      'GET /objects/{object_id}/relations', 'GET /objects/{object_id}/relations/{relation_name}', 'POST /objects/{object_id}/relations/{relation_name}',
      'PUT /objects/{object_id}/relations/{relation_name}/{related_id}', 'DELETE /objects/{object_id}/relations/{relation_name}/{related_id}',
      'GET /objects/{object_id}/children', 'POST /objects/{object_id}/children', 'GET /objects/{object_id}/children/{child_id}',
      'PUT /objects/{object_id}/children/{child_id}', 'DELETE /objects/{object_id}/children/{child_id}',
      'GET /objects/{object_id}/contents', 'GET /objects/{object_id}/sections', 'GET /objects/{object_id}/descendants', 'GET /objects/{object_id}/siblings',
      'GET /media/{object_id}/{file_name}', 'GET /thumbnails/{key}/{file}', 'GET /openapi.json', 'GET /docs', 'GET /docs/errors',
    ]) expect(operations).toContain(expected)
    // ancestors and parents are off for every method by default (spec 4.10)
    expect(operations.some((o) => /\/(ancestors|parents)$/.test(o))).toBe(false)
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string, summary?: string }>>).flatMap((ops) => Object.values(ops))
    expect(new Set(ids.map((op) => op.operationId)).size).toBe(ids.length)
    for (const op of ids) expect(op.summary).toBeTruthy()
  })

  it('has the schemas, the security schemes and every error code', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ContentObject', 'RelatedObject', 'Paging', 'ErrorBody', 'ErrorCode']))
    expect(doc.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES.map((e) => e.code))
    expect(doc.components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' }, access_token: { type: 'apiKey', in: 'query', name: 'access_token' },
    })
    expect(doc.paths['/objects'].post.security).toEqual([{ bearer: [] }, { access_token: [] }])
    expect(doc.paths['/objects'].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['page', 'page_size', 'filter[object_type]', 'filter[query]']))
    // the configured writable types: every type but the publication's
    const write = doc.paths['/objects'].post.requestBody.content['application/json'].schema.properties.data.properties
    expect(write.object_type.enum).not.toContain('area')
    expect(write.object_type.enum).toContain('document')
  })

  describe('the contract the system tests hold every answer to', () => {
    it('accepts the real answer, and refuses it when a field is renamed, added, retyped or dropped', async () => {
      const res = await fetch(`${system.base}/objects/1`)
      const body = await res.json() as { data: { object: { id: number, title: string } & Record<string, unknown> } }
      const url = new URL(`${system.base}/objects/1`)
      const check = (value: unknown) => contract.check('GET', url, 200, 'application/json; charset=utf-8', JSON.stringify(value))
      expect(check(body)).toEqual([])
      const { title, ...withoutTitle } = body.data.object
      const { id: _id, ...withoutId } = body.data.object
      for (const changed of [
        { ...withoutTitle, titel: title },
        { ...body.data.object, extra: 1 },
        { ...body.data.object, id: String(body.data.object.id) },
        { ...body.data.object, created: 'yesterday' },
        // `fields` may leave any field out but id and object_type (decisions §15)
        withoutId,
      ]) expect(check({ ...body, data: { object: changed } })).not.toEqual([])
      expect(check({ ...body, data: { object: withoutTitle } })).toEqual([])
      expect(check({ ...body, paging: undefined, api: 1 })).not.toEqual([])
    })

    it('refuses an undocumented status, an unknown error code and an error not in the error body', () => {
      const url = new URL(`${system.base}/objects/1`)
      const error = { error: { status: 404, code: 'OBJECT_NOT_FOUND', message: 'm', details: null, more_info: null, url: url.href } }
      expect(contract.check('GET', url, 404, 'application/json', JSON.stringify(error))).toEqual([])
      expect(contract.check('GET', url, 201, 'application/json', '{}')).not.toEqual([])
      expect(contract.check('GET', url, 404, 'application/json', JSON.stringify({ error: { ...error.error, code: 'NOT_A_CODE' } }))).not.toEqual([])
      expect(contract.check('GET', url, 404, 'application/json', JSON.stringify({ ...error, data: null }))).not.toEqual([])
      expect(contract.check('GET', new URL(`${system.base}/nowhere`), 200, 'application/json', '{}')).not.toEqual([])
    })
  })

  it('every error links its code on the errors page, which has an anchor for every code', async () => {
    const res = await http(system.base, 'GET', '/objects/99999')
    expect(res.body.error.more_info).toBe(`${system.base}/docs/errors#OBJECT_NOT_FOUND`)
    const page = await fetch(res.body.error.more_info)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    for (const { code } of ERROR_CODES) expect(html).toContain(`id="${code}"`)
  })
})

describe('GET /openapi.json follows the configuration in force', () => {
  let system: RunningSystem
  // biome-ignore lint/suspicious/noExplicitAny: the served OpenAPI document, read by path as JSON
  let doc: any
  const config = join(ROOT, 'test', '.openapi-config.yaml')

  beforeAll(async () => {
    writeFileSync(config, [
      'basePath: /v1', 'blacklist: [poster, files]', 'objectTypeEndpoints: [documents]', 'customEndpoints: [echo]',
      'writableTypes: [document, event]', 'pathFilters: { GET: [relations, ancestors], POST: [relations], PUT: [], DELETE: [] }', '',
    ].join('\n'))
    system = await startSystem({ CONFIG_FILE: config })
    checkAnswersOf(system.base, '/v1')
    doc = (await http(system.base, 'GET', '/v1/openapi.json')).body
  })
  afterAll(async () => {
    await system.stop()
    removeDir(system.dataDir)
    removeDir(config)
  })

  it('is valid and has the base path, blacklist, endpoints, filters and writable types of the config file', async () => {
    expect((await validate(doc)).valid).toBe(true)
    expect(doc.servers).toEqual([{ url: '/v1' }])
    const paths = Object.keys(doc.paths)
    expect(paths).not.toContain('/poster/{object_id}')
    expect(paths).not.toContain('/files/{object_type}/{file_name}')
    expect(paths).toEqual(expect.arrayContaining(['/documents', '/documents/{object_id}', '/documents/{object_id}/ancestors', '/echo', '/objects/{object_id}/ancestors']))
    expect(paths).not.toContain('/objects/{object_id}/children')
    expect(Object.keys(doc.paths['/objects/{object_id}/relations/{relation_name}'])).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/objects/{object_id}/relations/{relation_name}/{related_id}'])).toEqual(['get'])
    // object-type endpoints read only
    expect(Object.keys(doc.paths['/documents/{object_id}/relations/{relation_name}'])).toEqual(['get'])
    const write = doc.paths['/objects'].post.requestBody.content['application/json'].schema.properties.data.properties
    expect(write.object_type.enum).toEqual(['document', 'event'])
  })

  it('answers below the base path match it, and the reference pages live there too', async () => {
    const list = await http(system.base, 'GET', '/v1/documents')
    expect(list.status).toBe(200)
    const error = await http(system.base, 'GET', '/v1/objects/99999')
    expect(error.body.error.more_info).toBe(`${system.base}/v1/docs/errors#OBJECT_NOT_FOUND`)
    expect((await fetch(`${system.base}/v1/docs/errors`)).status).toBe(200)
  })
})
