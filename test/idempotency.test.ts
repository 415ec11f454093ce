import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { expectError, listIds, client, login, type Client } from './support/writer.js'

describe('Idempotency-Key: a retried POST write is applied once', () => {
  let system: RunningSystem
  let admin: Client
  let token: string
  beforeAll(async () => {
    system = await startSystem()
    token = await login(system.base)
    admin = client(system.base, token)
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const post = (path: string, data: unknown, key: string) =>
    http(system.base, 'POST', path, { headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, body: { data } })

  it('when a create is sent twice with one key, then one object exists and the second answer is the first, marked as replayed', async () => {
    const data = { object_type: 'document', title: 'Sent twice', parents: [1] }
    const first = await post('/objects', data, 'create-0001')
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await post('/objects', data, 'create-0001')
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(again.body).toEqual(first.body)
    expect(await listIds(admin, '/objects?filter[query]=sent%20twice')).toEqual([first.body.data.object.id])
  })

  it('when the key comes back with another body, then 422 IDEMPOTENCY_KEY_REUSED and nothing is written', async () => {
    await post('/objects', { object_type: 'document', title: 'Keyed once', parents: [1] }, 'create-0002')
    const other = await post('/objects', { object_type: 'document', title: 'Keyed twice', parents: [1] }, 'create-0002')
    expect(expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED')).toEqual({ parameter: 'Idempotency-Key' })
    expect(await listIds(admin, '/objects?filter[query]=keyed%20twice')).toEqual([])
  })

  it('when children are added twice with one key, then the second answer repeats the first, 201 included', async () => {
    const section = (await admin.post('/objects', { object_type: 'section', title: 'Shelf', parents: [1] })).body.data.object.id as number
    const doc = (await admin.post('/objects', { object_type: 'document', title: 'Book', parents: [1] })).body.data.object.id as number
    const first = await post(`/objects/${section}/children`, { child_id: doc }, 'children-0001')
    expect(first.status).toBe(201)
    const again = await post(`/objects/${section}/children`, { child_id: doc }, 'children-0001')
    expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, body: first.body, replayed: 'true' })
  })

  it('when the key is malformed, then 400 INVALID_PARAMETER naming the header', async () => {
    const res = await post('/objects', { object_type: 'document', title: 'Bad key', parents: [1] }, 'not a key')
    expect(expectError(res, 400, 'INVALID_PARAMETER')).toEqual({ parameter: 'Idempotency-Key' })
  })
})
