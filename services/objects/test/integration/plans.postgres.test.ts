import { OWN_FIELD_DEFAULTS } from '@content/api-schema'
import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { describe, expect, it } from 'vitest'
import type { ObjectLinks } from '../../src/core/object-input.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { createObject } from '../../src/core/writes/objects.writes.js'
import { savedView } from '../../src/core/writes/saved-view.js'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { schemaOf, tempSchema, testSettings } from '../support/temp-postgres.js'

describe('postgres store: lists planned for their values', () => {
  it('when a list has run many times, then it is still not a prepared statement (no generic plan), while a read by id is, and one of a single id, the kept tally of a page and its index walk plan generically', async () => {
    const { url, drop } = await tempSchema()
    // one connection: the prepared statements it holds are the store's
    const postgres = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    try {
      const selection = {
        visibility: { statuses: ['on' as const], at: Date.now(), groups: [] }, filter: { object_types: [], query: '' },
        clauses: [], sort: [], after: null, offset: 0, limit: 20, count: true,
      }
      // past the five runs after which a prepared statement may be planned generically
      for (let i = 0; i < 8; i++) {
        await store.lists.select({ kind: 'descendants', node: PUBLICATION_ID, order: 'id' }, selection)
        await store.tree.children(PUBLICATION_ID, 'all', { offset: 0, limit: 20, visibility: selection.visibility, filter: selection.filter })
        await store.tree.descendants(PUBLICATION_ID, 'tree', { offset: 0, limit: 20, visibility: selection.visibility, filter: selection.filter })
        await store.objects.listByIds([PUBLICATION_ID])
        await store.objects.listByIds([PUBLICATION_ID, PUBLICATION_ID + 1])
      }
      const prepared = (await postgres.query<{ statement: string, generic_plans: string }>('SELECT statement, generic_plans FROM pg_prepared_statements')).rows
      expect(prepared.some((s) => s.statement.includes('FROM objects o WHERE o.id = ANY'))).toBe(true)
      // one id is compared at once, so that after the first five runs its plan is made once and reused
      const one = prepared.find((s) => s.statement.endsWith('FROM objects o WHERE o.id = $1'))
      expect(Number(must(one).generic_plans)).toBeGreaterThanOrEqual(3)
      // a list's rows joined to their objects are planned for each run
      const pages = prepared.filter((s) => /LIMIT \$\d+ OFFSET \$\d+/.test(s.statement))
      expect(pages.filter((s) => s.statement.includes('objects'))).toEqual([])
      // a page's kept tally (count rows by node) and its index walk (when every row shows) are one plan for every node
      for (const kind of ['child', 'descendant']) {
        const tally = prepared.find((s) => s.statement.includes(`FROM ${kind}_counts WHERE node_id`))
        expect(Number(must(tally).generic_plans)).toBeGreaterThanOrEqual(3)
      }
      for (const walk of ['FROM tree WHERE parent_id = $1 ORDER BY', 'FROM closure WHERE ancestor_id = $1 AND descendant_id <> $1 ORDER BY']) {
        expect(Number(must(pages.find((s) => s.statement.includes(walk))).generic_plans)).toBeGreaterThanOrEqual(3)
      }
    } finally {
      await store.close()
      await drop()
    }
  })
})

describe('postgres store: a write\'s statements planned once', () => {
  it('when creates run one after another on one connection, then no statement of theirs is planned for its values again', async () => {
    const { url, drop } = await tempSchema()
    const postgres = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    const plans = async () => new Map((await postgres.query<{ statement: string, generic_plans: string, custom_plans: string }>(
      'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements')).rows.map((r) => [r.statement, { generic: Number(r.generic_plans), custom: Number(r.custom_plans) }]))
    try {
      const create = (i: number) => store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: `Doc ${i}` },
        read_groups: [], write_groups: [], user_id: 1, extras: { tags: ['planned'] }, links: { parents: [PUBLICATION_ID], relations: [] },
      }, Date.now())
      await create(0)
      const before = await plans()
      for (let i = 1; i <= 8; i++) await create(i)
      const after = await plans()
      const ran = [...after].map(([statement, n]) => ({ statement, generic: n.generic - (before.get(statement)?.generic ?? 0), custom: n.custom - (before.get(statement)?.custom ?? 0) }))
        .filter((d) => d.generic + d.custom > 0)
      // every statement of the creates' transactions (not the numbering's, after each commit, in a
      // transaction of the sequencer's): a generic plan reused, never a plan made for the run
      const inWrites = ran.filter((d) => !/WITH unnumbered AS|FROM changes WHERE id = ANY/.test(d.statement))
      expect(inWrites.length).toBeGreaterThan(3)
      expect(inWrites.filter((d) => d.custom > 0).map((d) => d.statement.slice(0, 60))).toEqual([])
      expect(inWrites.every((d) => d.generic >= 8)).toBe(true)
    } finally {
      await store.close()
      await drop()
    }
  })
})

describe('postgres store: a create\'s own rows, not read back', () => {
  it('when documents are created and answered as the save does, then no create reads its row back or its relation counts, its events go with its commit, and its answer is the view read afterwards', async () => {
    const { url, drop } = await tempSchema()
    const postgres = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    const vis = { statuses: ['on' as const], at: null, groups: [] }
    const prepared = async () => new Map((await postgres.query<{ statement: string, calls: string }>(
      'SELECT statement, generic_plans + custom_plans AS calls FROM pg_prepared_statements')).rows.map((r) => [r.statement, Number(r.calls)]))
    try {
      const related = await store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: 'Related' },
        read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
      }, Date.now())
      const save = (i: number, relations: ObjectLinks['relations']) => store.write(function * (tx) {
        const saved = yield * createObject(tx, {
          object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: `Doc ${i}` },
          read_groups: [], write_groups: [], user_id: 1, extras: { tags: ['own'] }, links: { parents: [PUBLICATION_ID], relations },
        }, Date.now())
        return yield * savedView(tx, saved, vis)
      })
      const readBack = (id: number) => store.write((tx) => savedView(tx, { id, record: null }, vis))
      const answers = [await save(0, [])]
      const before = await prepared()
      for (let i = 1; i <= 4; i++) answers.push(await save(i, []))
      const ran = [...await prepared()].filter(([statement, n]) => n > (before.get(statement) ?? 0)).map(([statement]) => statement)
      expect(ran.some((s) => s.includes('INSERT INTO revisions'))).toBe(true)
      expect(ran.filter((s) => /FOR NO KEY UPDATE|FROM relations r JOIN objects|INSERT INTO changes/.test(s)).map((s) => s.slice(0, 80))).toEqual([])
      // a create that relates its object reads its relation counts: its answer counts the relation
      answers.push(await save(5, [{ name: 'attach', inverse: 'attached_to', related_id: related, priority: null, params: null }]))
      expect(must(answers[5]).relations).toEqual([{ name: 'attach', count: 1 }])
      for (const answer of answers) expect(answer).toEqual(await readBack(must(answer).id))
      // events are written into their statement: group names that would end or escape a quoted string arrive as they were
      const groups = ["o'brien", 'back\\slash\\', "'); DROP TABLE changes; --", 'E\'x\\\'', 'ü ☃ \u0007']
      const guarded = await store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: 'Guarded' },
        read_groups: groups, write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
      }, Date.now())
      // and the events of every create were numbered, in order, once
      const events = await store.changes.after(0, 1000)
      expect(events.filter((e) => e.type === 'object.created').map((e) => e.object_id)).toEqual([related, ...answers.map((a) => must(a).id), guarded])
      expect(events.find((e) => e.type === 'object.created' && e.object_id === guarded)?.access?.read_groups).toEqual(groups)
    } finally {
      await store.close()
      await drop()
    }
  })
})
