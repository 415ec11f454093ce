import { describe, expect, it } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'

export const NOW = 1_700_000_000_000

/** The tables a fixtures import writes, each as its rows' JSON, sorted. */
export const TABLES = ['objects', 'tree', 'closure', 'relations', 'tags', 'object_tags', 'categories', 'object_categories',
  'custom_properties', 'translations', 'geo_tags', 'date_items', 'changes', 'child_counts', 'child_restricted', 'descendant_counts', 'descendant_restricted']

/** A store, its tables' rows (TABLES), and its end. */
export type FixturesFactory = () => Promise<{ store: ObjectsStore, dump: () => Promise<Record<string, string[]>>, cleanup: () => Promise<void> }>

/** An existing tree and relations for the file to join: a section with children, a document related to an image. */
export async function existing (store: ObjectsStore): Promise<{ section: number, doc: number, image: number }> {
  const write = (object_type: 'section' | 'document' | 'image', title: string, parents: number[]) => store.objects.create({
    object_type, nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 1,
    extras: { tags: ['old-tag'] }, links: { parents, relations: [] },
  }, NOW)
  const section = await write('section', 'Old section', [PUBLICATION_ID])
  const doc = await write('document', 'Taken title', [section])
  const image = await write('image', 'Old image', [section])
  await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: image, priority: 7, params: null }])
  await store.applyFixtures({ categories: [{ name: 'old-cat', label: 'Old' }], tags: [], objects: [] }, NOW)
  return { section, doc, image }
}

/** Everything the per-row path handles: late parents, nesting, several parents, existing targets, repeats. */
export function trickyFile (old: { section: number, doc: number, image: number }) {
  return {
    categories: [{ name: 'cat-a' }, { name: 'old-cat', label: 'Relabelled' }],
    tags: [{ name: 'tag-b', label: 'B' }],
    objects: [
      { ref: 'd-early', object_type: 'document', title: 'Taken title', parents: ['inner'], tags: ['tag-new', 'tag-b', 'old-tag'], categories: ['cat-a'] },
      { ref: 'outer', object_type: 'section', title: 'Outer', parents: ['@publication'] },
      { ref: 'inner', object_type: 'section', title: 'Inner', parents: ['outer'] },
      { ref: 'twice', object_type: 'document', title: 'Taken title', parents: ['outer', 'inner', old.section, '@publication', 1], categories: ['old-cat'] },
      { object_type: 'document', title: '', parents: [old.section], custom_properties: { a: '1', b: '2' }, languages: { fr: { title: 'T' } } },
      { object_type: 'document', title: '!!!', parents: ['inner'] },
      { ref: 'img', object_type: 'image', title: 'Pic', parents: ['outer'], geo_tags: [{ latitude: 1, longitude: 2 }] },
      { ref: 'ev', object_type: 'event', title: 'Event', parents: ['inner'], date_items: [{ start_date: '2024-01-01T00:00:00Z', days: [1, 2] }] },
      {
        ref: 'rel', object_type: 'document', title: 'Rel', parents: ['inner'],
        relations: { attach: [{ related: 'img', params: { caption: 'c' } }, { related: old.image }], seealso: [{ related: 'twice', priority: 5 }, { related: old.doc }] },
      },
      {
        object_type: 'document', title: 'Rel', parents: ['outer'],
        relations: { attach: [{ related: 'img' }, { related: 'img', priority: 3, params: { x: 1 } }, { related: old.image }], seealso: [{ related: 'rel' }] },
      },
      { ref: 'late', object_type: 'section', title: 'Late', status: 'draft', parents: ['outer'] },
      { ref: 'under-late', object_type: 'document', title: 'Under late', start_date: '2030-01-01T00:00:00Z', parents: ['late', 'inner'] },
    ],
  }
}

/** A fixtures plan is written all or nothing, on every store. */
export function describeFixturesContract (name: string, factory: FixturesFactory): void {
  describe(`fixtures plan, all or nothing: ${name}`, () => {
    it('when the last of thousands of objects fails to write, then no object, tree row, relation, tag or change event is left', async () => {
      const { store, dump, cleanup } = await factory()
      try {
        const objects: unknown[] = [{ ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] }]
        for (let i = 0; i < 5_000; i++) {
          objects.push({ ref: `d${i}`, object_type: 'document', title: `D ${i}`, parents: ['s'], tags: [`t${i % 7}`], relations: i > 0 ? { seealso: [{ related: `d${i - 1}` }] } : {} })
        }
        // checked free when planned, taken by the time it is written (a concurrent write got there first)
        objects.push({ ref: 'late', object_type: 'document', title: 'Late', nickname: 'publication', parents: ['s'] })
        const outcome = planFixtures(JSON.stringify({ tags: [{ name: 'file-tag' }], objects }), [], PUBLICATION_ID)
        if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
        let told = 0
        store.onChange(() => { told++ })
        await expect(store.applyFixtures(outcome.plan, NOW)).rejects.toMatchObject({ name: 'UniqueConflict' })
        expect(store.committedSeq()).toBe(0)
        expect(told).toBe(0)
        const rows = await dump()
        expect(rows.objects).toHaveLength(1)
        expect(rows.closure).toHaveLength(1)
        for (const table of ['tree', 'relations', 'tags', 'object_tags', 'changes']) expect({ table, rows: rows[table] }).toEqual({ table, rows: [] })
      } finally {
        await cleanup()
      }
    }, 120_000)

    it('when an object the plan names is deleted before the plan is written, then nothing is written, and cascades run again afterwards', async () => {
      const { store, dump, cleanup } = await factory()
      try {
        const { section, image } = await existing(store)
        const plan = (objects: unknown[]) => {
          const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
          if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
          return outcome.plan
        }
        const naming = plan([
          { ref: 'a', object_type: 'document', title: 'A', parents: [section], custom_properties: { k: 'v' } },
          { object_type: 'document', title: 'B', parents: ['a'], relations: { attach: [{ related: image }] } },
        ])
        // planned and checked while the image was there, written after a concurrent delete
        expect(await store.objects.remove(image)).toBe('removed')
        const before = await dump()
        await expect(store.applyFixtures(naming, NOW)).rejects.toMatchObject({ name: 'TargetGone' })
        expect(await dump()).toEqual(before)

        const refs = await store.applyFixtures(plan([{ ref: 'a', object_type: 'document', title: 'A', parents: [section], custom_properties: { k: 'v' } }]), NOW)
        expect((await dump()).custom_properties).toHaveLength(1)
        // an import may turn a store's checks off for its transaction only (SQLite's foreign keys): a delete cascades again
        expect(await store.objects.remove(refs.a as number)).toBe('removed')
        expect((await dump()).custom_properties).toEqual([])
      } finally {
        await cleanup()
      }
    })
  })
}
