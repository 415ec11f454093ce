import { describe, expect, it } from 'vitest'
import { loadConfig } from '@content/platform'
import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import { objectsEnv } from '../../src/config.js'
import { parseSaveInput } from '../../src/core/save-input.js'
import { writeAccess } from '../../src/core/write-access.js'

describe('parseSaveInput', () => {
  it('when a create is valid, then columns, extras and links are split out', () => {
    const out = parseSaveInput({ object_type: 'document', title: 'T', parents: [1], tags: ['a'], relations: { attach: [{ related_id: 4, params: { x: 1 } }] } })
    expect(out).toEqual({ ok: true, value: {
      id: null, object_type: 'document', nickname: undefined, columns: { title: 'T' }, extras: { tags: ['a'] }, parents: [1],
      relations: [{ name: 'attach', related_id: 4, priority: null, params: '{"x":1}' }], upload_token: null,
    } })
  })

  it('when an upload token is given, then it is passed on as sent', () => {
    const out = parseSaveInput({ id: 3, upload_token: 'tok_-123' })
    expect(out).toMatchObject({ ok: true, value: { id: '3', upload_token: 'tok_-123', columns: {} } })
  })

  it.each(['file', 'uri', 'name', 'mime_type', 'file_size', 'width', 'height'])('when the data sets the media field %s, then 400 names it as server-owned', (field) => {
    expect(parseSaveInput({ id: 3, [field]: 'x' })).toEqual({ ok: false, details: { [field]: 'is set by the server and cannot be written' } })
  })

  it('when the data sets several server-owned fields, then each is named', () => {
    const out = parseSaveInput({ id: 3, file: { key: 'k' }, width: 4, status: 'on' })
    expect(out.ok ? {} : out.details).toEqual({
      file: 'is set by the server and cannot be written', width: 'is set by the server and cannot be written', status: 'is set by the server and cannot be written',
    })
  })

  it.each([
    ['empty', ''], ['too long', 'x'.repeat(513)], ['not a string', 42], ['null', null],
  ])('when upload_token is %s, then 400 names upload_token', (_label, token) => {
    const out = parseSaveInput({ id: 3, upload_token: token })
    expect(out.ok).toBe(false)
    if (!out.ok) expect(Object.keys(out.details)).toEqual(['upload_token'])
  })

  it('when upload_token is 512 characters, then it is accepted', () => {
    expect(parseSaveInput({ id: 3, upload_token: 'x'.repeat(512) }).ok).toBe(true)
  })

  it.each([
    ['an array', '[]', { data: 'must be a JSON object' }],
    ['a string', '"x"', { data: 'must be a JSON object' }],
    ['no type on create', '{"parents":[1]}', { object_type: 'is required to create an object' }],
    ['no parents nor relations', '{"object_type":"document"}', { parents: 'parents or relations are required to create an object' }],
    ['empty parents and no relations', '{"object_type":"document","parents":[]}', { parents: 'parents or relations are required to create an object' }],
    ['empty relations and no parents', '{"object_type":"document","relations":{"attach":[]}}', { parents: 'parents or relations are required to create an object' }],
    ['a negative relation priority', '{"id":3,"relations":{"seealso":[{"related_id":4,"priority":-1}]}}', { 'relations.seealso.0.priority': 'Too small: expected number to be >=0' }],
    ['a server-owned field', '{"id":3,"modified":1}', { modified: 'is set by the server and cannot be written' }],
    ['an unknown field', '{"id":3,"colour":"red"}', { colour: 'is not a writable field' }],
    ['unknown fields named as what every object has', '{"id":3,"constructor":"a","toString":1,"hasOwnProperty":[]}', { constructor: 'is not a writable field', toString: 'is not a writable field', hasOwnProperty: 'is not a writable field' }],
    ['a bad nickname', '{"id":3,"nickname":"Bad Name"}', { nickname: 'may contain only a-z, 0-9, "_" and "-"' }],
    ['a date item ending before it starts', '{"id":3,"date_items":[{"start_date":"2025-01-02T00:00:00Z","end_date":"2025-01-01T23:59:59+00:00"}]}', { 'date_items.0.end_date': 'must not be before start_date' }],
  ])('when the data has %s, then details are %j', (_label, json, details) => {
    expect(parseSaveInput(JSON.parse(json))).toEqual({ ok: false, details })
  })

  it('when a field has the wrong type, then the detail names the field', () => {
    const out = parseSaveInput({ id: 3, valid: 'yes', start_date: 'yesterday' })
    expect(out.ok).toBe(false)
    if (!out.ok) expect(Object.keys(out.details).sort()).toEqual(['start_date', 'valid'])
  })
})

describe('writeAccess', () => {
  const writers = ['administrator', 'editor']
  it.each([
    ['anonymous', { user_id: 0, groups: [] }, [], 'anonymous'],
    ['a reader', { user_id: 3, groups: ['members'] }, [], 'denied'],
    ['an editor', { user_id: 3, groups: ['editor'] }, [], 'ok'],
    ['an editor outside the object write groups', { user_id: 3, groups: ['editor'] }, ['chiefs'], 'denied'],
    ['an editor inside the object write groups', { user_id: 3, groups: ['editor', 'chiefs'] }, ['chiefs'], 'ok'],
    ['an administrator', { user_id: 1, groups: ['administrator'] }, ['chiefs'], 'ok'],
    ['a member of a backend_auth group', { user_id: 4, groups: ['writers'], may_write: true }, [], 'ok'],
    ['a member of a backend_auth group outside the object write groups', { user_id: 4, groups: ['writers'], may_write: true }, ['chiefs'], 'denied'],
  ])('when %s writes, then %s', (_label, caller, writeGroups, expected) => {
    expect(writeAccess(caller, writers, { write_groups: writeGroups })).toBe(expected)
  })
})

describe('objects config', () => {
  it('when the environment is empty, then the documented defaults apply', () => {
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV })).toMatchObject({
      GRPC_HOST: '0.0.0.0', GRPC_PORT: 50051, DATA_DIR: './data', STORE: 'sqlite', MONGODB_DB: 'content', PUBLICATION_NICKNAME: 'publication',
      VISIBLE_STATUSES: ['on'], PUBLICATION_WINDOW_FILTER: true, WRITER_GROUPS: ['administrator', 'editor'], UPLOAD_TOKEN_TTL: 1800,
    })
  })

  it('when values are set, then they are parsed', () => {
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, VISIBLE_STATUSES: 'on,draft', PUBLICATION_WINDOW_FILTER: 'false', WRITER_GROUPS: 'a, b', UPLOAD_TOKEN_TTL: '3' }))
      .toMatchObject({ VISIBLE_STATUSES: ['on', 'draft'], PUBLICATION_WINDOW_FILTER: false, WRITER_GROUPS: ['a', 'b'], UPLOAD_TOKEN_TTL: 3 })
  })

  it('when values are wrong, then every problem is listed', () => {
    expect(() => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, VISIBLE_STATUSES: 'on,live', PUBLICATION_NICKNAME: '123', STORE: 'mongodb' }))
      .toThrow(/VISIBLE_STATUSES[\s\S]*PUBLICATION_NICKNAME|PUBLICATION_NICKNAME[\s\S]*VISIBLE_STATUSES/)
  })

  it.each(['0', '-5', '1.5', 'soon', '86401'])('when UPLOAD_TOKEN_TTL is %s, then the configuration is refused naming it', (ttl) => {
    expect(() => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, UPLOAD_TOKEN_TTL: ttl })).toThrow(/UPLOAD_TOKEN_TTL/)
  })
})
