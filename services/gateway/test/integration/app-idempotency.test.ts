import { DomainError, sendHeaders } from '@content/platform'
import { RESPONSE_HEADERS } from '@content/protos'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FakeBackends } from '../support/fake-backends.js'
import { buildTestApp } from '../support/test-app.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest({ routing: { writableTypes: ['document', 'section'] } })
let auth: Record<string, string>
beforeAll(async () => {
  auth = { authorization: `Bearer ${await signToken({ id: 7, groups: ['editor'], backend_auth: true })}` }
})

const send = (method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, payload?: unknown, headers: Record<string, string | string[]> = {}) =>
  gw.app.inject({ method, url, headers: { ...auth, 'content-type': 'application/json', ...headers }, ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }) })
const lastCall = (method: string) => gw.backends.calls.filter((c) => c.method === method).at(-1)?.request as Record<string, unknown>
const CREATE = { data: { object_type: 'document', title: 'New', parents: [1] } }

describe('Idempotency-Key on POST writes', () => {
  it('when a key is sent, then it goes to the objects service with a fingerprint of method, path and canonical body', async () => {
    await send('POST', '/objects', CREATE, { 'idempotency-key': 'key-1' })
    const first = lastCall('objects.SaveObject')
    expect(first.idempotency_key).toBe('key-1')
    expect(first.request_hash).toMatch(/^[0-9a-f]{64}$/)
    // the same JSON, spelled differently, is the same request
    await send('POST', '/objects', '{ "data": {"parents":[1], "title":"New",  "object_type":"document"} }', { 'idempotency-key': 'key-1' })
    expect(lastCall('objects.SaveObject').request_hash).toBe(first.request_hash)
    await send('POST', '/objects', { data: { ...CREATE.data, title: 'Other' } }, { 'idempotency-key': 'key-1' })
    expect(lastCall('objects.SaveObject').request_hash).not.toBe(first.request_hash)
  })

  it('when relations and children are saved with a key, then it is forwarded, and the path is part of the fingerprint', async () => {
    const body = { data: [{ related_id: 5 }] }
    await send('POST', '/objects/3/relations/attach', body, { 'idempotency-key': 'k' })
    const attach = lastCall('objects.SaveRelations')
    await send('POST', '/objects/3/relations/seealso', body, { 'idempotency-key': 'k' })
    expect(attach).toMatchObject({ idempotency_key: 'k', request_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(lastCall('objects.SaveRelations').request_hash).not.toBe(attach.request_hash)
    await send('POST', '/objects/2/children', { data: { child_id: 5 } }, { 'idempotency-key': 'k' })
    expect(lastCall('tree.SaveChildren')).toMatchObject({ idempotency_key: 'k', request_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
  })

  it('when no key is sent, then nothing changes: no key, no hash, no replay header', async () => {
    const res = await send('POST', '/objects', CREATE)
    expect(res.statusCode).toBe(201)
    expect(lastCall('objects.SaveObject')).toMatchObject({ idempotency_key: '', request_hash: '' })
    expect(res.headers['idempotent-replayed']).toBeUndefined()
  })

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'a key'],
    ['with a non-ASCII character', 'clé'],
    ['sent twice', ['one', 'two']],
    ['sent twice, the same', ['same', 'same']],
  ])('when the key is %s, then 400 INVALID_PARAMETER naming the header, before anything else, and no backend call', async (_label, key) => {
    for (const [method, url, body] of [['POST', '/objects', CREATE], ['POST', '/objects/3/relations/attach', { data: [] }], ['POST', '/objects/2/children', {}]] as const) {
      const res = await gw.app.inject({ method, url, headers: { 'content-type': 'application/json', 'idempotency-key': key }, payload: JSON.stringify(body) })
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter: 'Idempotency-Key' } })
    }
    expect(gw.backends.calls.filter((c) => c.method !== 'objects.WatchChanges')).toHaveLength(0)
  })

  it('when the key is 255 visible ASCII characters, then it is accepted', async () => {
    const key = `!~${'k'.repeat(253)}`
    expect((await send('POST', '/objects', CREATE, { 'idempotency-key': key })).statusCode).toBe(201)
    expect(lastCall('objects.SaveObject').idempotency_key).toBe(key)
  })

  describe('answers the objects service gives', () => {
    let original: Pick<FakeBackends['objects'], 'SaveObject' | 'SaveRelations'>
    beforeEach(() => { original = { SaveObject: gw.backends.objects.SaveObject, SaveRelations: gw.backends.objects.SaveRelations } })
    afterEach(() => { Object.assign(gw.backends.objects, original) })

    it('when the objects service says the answer is a replay, then Idempotent-Replayed: true comes with the first answer\'s status', async () => {
      const saveObject = gw.backends.objects.SaveObject
      gw.backends.objects.SaveObject = async (req, call) => {
        sendHeaders(call as never, { [RESPONSE_HEADERS.idempotentReplayed]: 'true', [RESPONSE_HEADERS.changeSeq]: '0' })
        return saveObject(req, call)
      }
      const res = await send('POST', '/objects', CREATE, { 'idempotency-key': 'key-1' })
      expect(res.statusCode).toBe(201)
      expect(res.headers['idempotent-replayed']).toBe('true')
      expect(res.headers.location).toMatch(/\/objects\/\d+$/)
      const saveRelations = gw.backends.objects.SaveRelations
      gw.backends.objects.SaveRelations = async (req, call) => {
        sendHeaders(call as never, { [RESPONSE_HEADERS.idempotentReplayed]: 'true' })
        return saveRelations(req, call)
      }
      const relate = await send('POST', '/objects/3/relations/attach', { data: { related_id: 4 } }, { 'idempotency-key': 'key-2' })
      expect(relate.statusCode).toBe(200)
      expect(relate.headers['idempotent-replayed']).toBe('true')
    })

    it('when the key was used for another request, then 422 IDEMPOTENCY_KEY_REUSED in the error body', async () => {
      gw.backends.objects.SaveObject = async () => {
        throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for another request within 24 hours', { parameter: 'Idempotency-Key' })
      }
      const res = await send('POST', '/objects', CREATE, { 'idempotency-key': 'key-1' })
      expect(res.statusCode).toBe(422)
      expect(res.json()).toEqual({
        error: {
          status: 422, code: 'IDEMPOTENCY_KEY_REUSED', message: 'this Idempotency-Key was used for another request within 24 hours',
          details: { parameter: 'Idempotency-Key' }, more_info: 'http://localhost:80/docs/errors#IDEMPOTENCY_KEY_REUSED', url: 'http://localhost:80/objects',
        },
      })
    })
  })
})

describe('answers to writes that may have been applied', () => {
  const MAYBE = { maybe_applied: true, retry: expect.stringContaining('same Idempotency-Key') }
  const hang = () => new Promise<never>(() => {})

  it('when the backend misses its deadline on a write, then 504 says the write may have been applied, without internals', async () => {
    const saveObject = gw.backends.objects.SaveObject
    const replace = gw.backends.objects.ReplaceRelation
    const remove = gw.backends.tree.RemoveChild
    gw.backends.objects.SaveObject = hang
    gw.backends.objects.ReplaceRelation = hang
    gw.backends.tree.RemoveChild = hang
    try {
      const answers = await Promise.all([
        send('POST', '/objects', CREATE, { 'idempotency-key': 'slow' }),
        send('PUT', '/objects/3/relations/attach/4', { data: { priority: 2 } }),
        send('DELETE', '/objects/2/children/3'),
      ])
      for (const res of answers) {
        expect(res.statusCode).toBe(504)
        expect(res.json().error).toMatchObject({ status: 504, code: 'BACKEND_TIMEOUT', message: 'a backend service did not answer in time', details: MAYBE })
        expect(res.body).not.toMatch(/deadline|remote_addr|LB pick/i)
      }
    } finally {
      gw.backends.objects.SaveObject = saveObject
      gw.backends.objects.ReplaceRelation = replace
      gw.backends.tree.RemoveChild = remove
    }
  })

  it('when a read misses its deadline, or a write is refused by the backend itself, then no such detail', async () => {
    const getObject = gw.backends.objects.GetObject
    gw.backends.objects.GetObject = hang
    try {
      const res = await send('GET', '/objects/3')
      expect(res.statusCode).toBe(504)
      expect(res.json().error.details).toBeNull()
    } finally {
      gw.backends.objects.GetObject = getObject
    }
    const busy = gw.backends.objects.DeleteObject
    gw.backends.objects.DeleteObject = async () => { throw new DomainError('SERVICE_UNAVAILABLE', 'the store is busy') }
    try {
      const res = await send('DELETE', '/objects/5')
      expect(res.statusCode).toBe(503)
      expect(res.json().error.details).toBeNull()
    } finally {
      gw.backends.objects.DeleteObject = busy
    }
  })

  it('when no backend can be reached, then the write never left the gateway: 503 without maybe_applied', async () => {
    const unreachable = await buildTestApp({ ...gw.backends, address: '127.0.0.1:9' }, { readiness: { objects: '127.0.0.1:9', auth: '127.0.0.1:9' } })
    try {
      const res = await unreachable.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(CREATE) })
      expect(res.statusCode).toBe(503)
      expect(res.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: null })
    } finally {
      await unreachable.close()
    }
  })
})
