import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { describeDraftsContract } from './drafts.contract.js'
import { describeOutboxContract } from './outbox.contract.js'
import { describeSelectContract } from './select.contract.js'
import { describeObjectsStoreContract } from './store.contract.js'
import { describeRevisionsContract } from './revisions.contract.js'
import { describeScheduleContract } from './schedule.contract.js'
import { describeTrashContract } from './trash.contract.js'

describeObjectsStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-store-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeSelectContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-select-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeOutboxContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-outbox-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeTrashContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-trash-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeScheduleContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-schedule-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeDraftsContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-drafts-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeRevisionsContract('sqlite', async (keep) => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-revisions-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication', revisionsKeep: keep })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describe('sqlite store identity', () => {
  it('when a store file is opened again, then it keeps its id and its change numbering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-id-'))
    try {
      const file = join(dir, 'objects.sqlite')
      const first = openSqliteStore(file, { publicationNickname: 'publication' })
      await first.objects.create({ object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'A' }, read_groups: [], write_groups: [], user_id: 1, extras: {} }, 1)
      const id = first.storeId
      await first.close()
      const again = openSqliteStore(file, { publicationNickname: 'publication' })
      expect(again.storeId).toBe(id)
      expect(await again.changes.bounds()).toEqual({ first: 1, last: 1 })
      await again.close()
      const other = openSqliteStore(join(dir, 'other.sqlite'), { publicationNickname: 'publication' })
      expect(other.storeId).not.toBe(id)
      await other.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('sqlite store: stored geo tags', () => {
  it('when a geo tag was stored before its map view took the API\'s field name (map_type), then it reads as mapType', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-gmaps-'))
    try {
      const file = join(dir, 'objects.sqlite')
      const store = openSqliteStore(file, { publicationNickname: 'publication' })
      const gmaps = { zoom: 7, mapType: 'satellite', latitude: 1, longitude: 2, range: 3 }
      const id = await store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Here' }, read_groups: [], write_groups: [], user_id: 1,
        extras: { geo_tags: [{ title: 'a', address: '', latitude: 1, longitude: 2, gmaps_lookats: gmaps }, { title: 'b', address: '', latitude: 3, longitude: 4, gmaps_lookats: gmaps }] },
      }, 1)
      const db = new Database(file)
      db.prepare("UPDATE geo_tags SET gmaps_lookats = json_object('zoom', 5, 'map_type', 'roadmap', 'latitude', 0, 'longitude', 0, 'range', 9) WHERE title = 'b'").run()
      db.close()
      const tags = (await store.objects.details([id])).get(id)?.geo_tags.map((g) => g.gmaps_lookats)
      expect(tags).toEqual([gmaps, { zoom: 5, mapType: 'roadmap', latitude: 0, longitude: 0, range: 9 }])
      await store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('sqlite store: own fields (OWN_FIELDS)', () => {
  it('when a store made before an own field existed is opened, then the field\'s column is added and reads give its default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-fields-'))
    try {
      const file = join(dir, 'objects.sqlite')
      const first = openSqliteStore(file, { publicationNickname: 'publication' })
      const id = await first.objects.create({ object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Old', comments: 'on' }, read_groups: [], write_groups: [], user_id: 1, extras: {} }, 1)
      await first.close()
      // as if `comments` and `publication_date` had come after this store was made
      const db = new Database(file)
      db.exec('DROP INDEX objects_publication; DROP TRIGGER object_tags_date')
      db.exec('ALTER TABLE objects DROP COLUMN comments')
      db.exec('ALTER TABLE objects DROP COLUMN publication_date')
      db.close()
      const again = openSqliteStore(file, { publicationNickname: 'publication' })
      expect(await again.objects.get({ id })).toMatchObject({ title: 'Old', comments: '', publication_date: null })
      await again.objects.update(id, { columns: { comments: 'off', publication_date: 5 }, user_id: 1, extras: {} }, 2)
      expect(await again.objects.get({ id })).toMatchObject({ comments: 'off', publication_date: 5 })
      await again.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
