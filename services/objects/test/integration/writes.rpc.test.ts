import { describe, expect, it } from 'vitest'
import { NOW } from './site.fixture.js'
import { admin, anonymous, editor, failure, harnessTest, importFixtures, member, WRITABLE } from './harness.js'
import { must } from '../support/must.js'
import { bodyOf } from '../support/write-body.js'

const memberEditor = { user_id: 7, groups: ['editor', 'members'] }
const memberAdmin = { user_id: 8, groups: ['administrator', 'members'] }

describe('writes over gRPC', () => {
  const { h, ids } = harnessTest({ now: NOW })
  const save = (data: object, caller = editor) => h.objects.SaveObject({ caller, body_json: bodyOf(data), writable_types: WRITABLE })

  describe('SaveObject', () => {
    it('when an editor creates an object, then it is stored with parents, relations and extras and read back', async () => {
      const res = await save({
        object_type: 'event', title: 'Opening Night', parents: [ids.news], tags: ['new-tag'], categories: ['c1'],
        relations: { attach: [{ related_id: ids.img1, params: { label: 'cover' } }] },
        date_items: [{ start_date: '2025-03-01T20:00:00+01:00', end_date: '2025-03-01T23:00:00+01:00', days: [5, 5, 0] }],
      })
      expect(res.created).toBe(true)
      expect(res.object).toMatchObject({ object_type: 'event', nickname: 'opening-night', status: 'on', user_created: editor.user_id, parent_ids: [ids.news] })
      expect(must(res.object).relations).toEqual([{ name: 'attach', count: 1, included: false }])
      expect(must(must(res.object).date_items[0]).days).toEqual([0, 5])
      const children = await h.tree.ListTree({ caller: anonymous, object_id: 'news', kind: 'CHILDREN' })
      expect(must(children.objects.at(-1)).id).toBe(must(res.object).id)
      expect((await h.objects.GetRelation({ caller: anonymous, object_id: String(ids.img1), name: 'attached_to', related_id: must(res.object).id })).params_json).toBe('{"label":"cover"}')
    })

    it('when an object is updated, then only the given fields change', async () => {
      const res = await save({ id: ids.doc1, title: 'Hello again', custom_properties: { only: 'this' } })
      expect(res.created).toBe(false)
      expect(res.object).toMatchObject({ id: ids.doc1, title: 'Hello again', description: 'First', nickname: 'hello', custom_properties: { only: 'this' } })
    })

    it.each([
      ['an anonymous caller', { object_type: 'document', parents: [1] }, anonymous, 401, 'AUTHENTICATION_REQUIRED'],
      ['a caller outside the writer groups', { object_type: 'document', parents: [1] }, member, 403, 'PERMISSION_DENIED'],
      ['an unknown type', { object_type: 'blog', parents: [1] }, editor, 400, 'UNKNOWN_OBJECT_TYPE'],
      ['a type not writable', { object_type: 'audio', parents: [1] }, editor, 400, 'TYPE_NOT_WRITABLE'],
      ['no parents nor relations', { object_type: 'document' }, editor, 400, 'VALIDATION_FAILED'],
      ['a server-owned field', { object_type: 'document', parents: [1], status: 'off' }, editor, 400, 'VALIDATION_FAILED'],
      ['a file written directly', { object_type: 'image', parents: [1], file: { key: 'a'.repeat(64), name: 'a.png', mime_type: 'image/png', size: 1 } }, editor, 400, 'VALIDATION_FAILED'],
      ['an unknown field', { object_type: 'document', parents: [1], colour: 'red' }, editor, 400, 'VALIDATION_FAILED'],
      ['a date without zone', { object_type: 'document', parents: [1], start_date: '2025-01-01T00:00:00' }, editor, 400, 'VALIDATION_FAILED'],
      ['date items on a document', { object_type: 'document', parents: [1], date_items: [{ days: [1] }] }, editor, 400, 'VALIDATION_FAILED'],
      ['a missing parent', { object_type: 'document', parents: [99999] }, editor, 400, 'VALIDATION_FAILED'],
      ['a content as parent', { object_type: 'document', parents: [2 + 3] }, editor, 400, 'VALIDATION_FAILED'],
      ['an unknown category', { object_type: 'document', parents: [1], categories: ['nope'] }, editor, 400, 'VALIDATION_FAILED'],
      ['a relation to a wrong type', { object_type: 'document', parents: [1], relations: { poster: [{ related_id: 2 }] } }, editor, 400, 'VALIDATION_FAILED'],
      ['an unknown relation', { object_type: 'document', parents: [1], relations: { likes: [{ related_id: 2 }] } }, editor, 400, 'UNKNOWN_RELATION'],
      ['a taken nickname', { object_type: 'document', parents: [1], nickname: 'hello' }, editor, 409, 'NICKNAME_TAKEN'],
      ['an update of a missing object', { id: 99999, title: 'x' }, editor, 404, 'OBJECT_NOT_FOUND'],
      ['an update of the publication (area is never writable)', { id: 1, title: 'x' }, admin, 400, 'TYPE_NOT_WRITABLE'],
      ['a negative relation priority', { object_type: 'document', parents: [1], relations: { seealso: [{ related_id: 2, priority: -1 }] } }, editor, 400, 'VALIDATION_FAILED'],
      ['empty parents and relations', { object_type: 'document', parents: [], relations: {} }, editor, 400, 'VALIDATION_FAILED'],
    ])('when the request has %s, then %i %s', async (_label, data, caller, status, reason) => {
      expect(await failure(save(data, caller))).toMatchObject({ httpStatus: status, reason })
    })

    it('when a publication window or a date item would end before it starts, then 400 naming end_date', async () => {
      const window = { start_date: '2025-02-01T00:00:00Z', end_date: '2025-01-01T00:00:00Z' }
      expect(await failure(save({ object_type: 'document', parents: [1], ...window }))).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED', details: { end_date: 'must not be before start_date' } })
      expect(await failure(save({ object_type: 'event', parents: [1], date_items: [window] }))).toMatchObject({ httpStatus: 400, details: { 'date_items.0.end_date': 'must not be before start_date' } })
      // an update is checked against the stored half of the window
      await save({ id: ids.doc1, start_date: '2025-02-01T00:00:00Z' })
      expect(await failure(save({ id: ids.doc1, end_date: '2025-01-01T00:00:00Z' }))).toMatchObject({ httpStatus: 400, details: { end_date: 'must not be before start_date' } })
      expect(must((await save({ id: ids.doc1, end_date: '2025-02-01T00:00:00Z' })).object).end_date).toBe(Date.parse('2025-02-01T00:00:00Z'))
    })

    it('when a validation fails, then details name the field', async () => {
      const f = await failure(save({ object_type: 'document', parents: [1], created: 5 }))
      expect(f.details).toEqual({ created: 'is set by the server and cannot be written' })
    })

    it.each([
      ['an update of a missing object with a bad field', { id: 99999, title: 5 }, editor, 404, 'OBJECT_NOT_FOUND'],
      ['an update by an unknown nickname with a bad date', { id: 'no-such', start_date: 'x' }, editor, 404, 'OBJECT_NOT_FOUND'],
      ['a create by a non-writer with a bad body', { object_type: 'widget', title: 5 }, member, 403, 'PERMISSION_DENIED'],
      ['a create by a non-writer of a type not writable', { object_type: 'audio', parents: [1] }, member, 403, 'PERMISSION_DENIED'],
      ['an update by a non-writer with a bad field', { id: 2, title: 5 }, member, 403, 'PERMISSION_DENIED'],
      ['an update of a missing object with a malformed id', { id: -4, title: 5 }, editor, 400, 'VALIDATION_FAILED'],
    ])('when the request has %s, then the object-level answer %i %s wins over the body', async (_label, data, caller, status, reason) => {
      expect(await failure(save(data, caller))).toMatchObject({ httpStatus: status, reason })
    })

    it('when an object lists write groups, then only those groups (and administrators) may write it', async () => {
      expect(await failure(save({ id: ids.secret, title: 'x' }, member))).toMatchObject({ httpStatus: 403, reason: 'PERMISSION_DENIED' })
      await expect(save({ id: ids.secret, title: 'by editor' }, memberEditor)).resolves.toMatchObject({ created: false })
      await expect(save({ id: ids.secret, title: 'by admin' }, memberAdmin)).resolves.toMatchObject({ created: false })
      await h.objects.SetPermissions({ object_id: String(ids.secret), read_groups: ['members'], write_groups: ['administrator'] })
      expect(await failure(save({ id: ids.secret, title: 'x' }, memberEditor))).toMatchObject({ httpStatus: 403, reason: 'PERMISSION_DENIED' })
    })
  })

  describe('read rights for writes', () => {
    // `secret` and `privimg` are readable by members only; `editor` may write but is not a member
    const titleOfSecret = async () => must((await h.objects.GetObject({ caller: member, object_id: String(ids.secret) })).object).title

    it('when a writer may not read the object a write names, then 403 whatever the write, and nothing changes', async () => {
      const refused = [
        () => save({ id: ids.secret, title: 'changed' }),
        () => save({ id: ids.secret, title: 5 }),
        () => h.objects.DeleteObject({ caller: editor, object_id: String(ids.secret) }),
        () => h.objects.SaveRelations({ caller: editor, object_id: String(ids.privimg), name: 'attached_to', body_json: bodyOf([{ related_id: ids.doc2 }]) }),
        () => h.objects.ReplaceRelation({ caller: editor, object_id: String(ids.privimg), name: 'attached_to', related_id: ids.doc1, body_json: bodyOf({ priority: 3 }) }),
        () => h.objects.DeleteRelation({ caller: editor, object_id: String(ids.privimg), name: 'attached_to', related_id: ids.doc1 }),
      ]
      for (const write of refused) {
        const err = await failure(write())
        expect(err).toMatchObject({ httpStatus: 403, reason: 'PERMISSION_DENIED' })
        expect(JSON.stringify(err)).not.toContain('Secret')
      }
      expect(await titleOfSecret()).toBe('Secret')
      const related = await h.objects.ListRelated({ caller: member, object_id: String(ids.privimg), name: 'attached_to' })
      expect(related.objects.map((o) => o.id)).toEqual([ids.doc1])
    })

    it('when a writer may not read a related object or a child, then it does not exist for that write', async () => {
      expect(await failure(h.objects.ReplaceRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.privimg, body_json: bodyOf({ priority: 3 }) })))
        .toMatchObject({ httpStatus: 404, reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.DeleteRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.privimg })))
        .toMatchObject({ httpStatus: 404, reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.SaveRelations({ caller: editor, object_id: 'hello', name: 'seealso', body_json: bodyOf([{ related_id: ids.secret }]) })))
        .toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      expect(await failure(h.tree.UpdateChild({ caller: editor, object_id: 'news', child_id: ids.secret, body_json: bodyOf({ priority: 1 }) })))
        .toMatchObject({ httpStatus: 404, reason: 'CHILD_NOT_FOUND' })
      expect(await failure(h.tree.RemoveChild({ caller: editor, object_id: 'news', child_id: ids.secret })))
        .toMatchObject({ httpStatus: 404, reason: 'CHILD_NOT_FOUND' })
      expect(await failure(h.tree.SaveChildren({ caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.secret }]) })))
        .toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      const attached = await h.objects.ListRelated({ caller: member, object_id: 'hello', name: 'attach' })
      expect(attached.objects.map((o) => o.id)).toContain(ids.privimg)
      expect(await h.tree.GetChildPosition({ caller: member, object_id: 'news', child_id: ids.secret })).toMatchObject({ priority: expect.any(Number) })
      expect(await failure(h.tree.GetChildPosition({ caller: member, object_id: 'about', child_id: ids.secret }))).toMatchObject({ httpStatus: 404 })
    })

    it('when the writer is an administrator in none of the read groups, then it reads and writes them all the same (decisions §7)', async () => {
      expect(must((await h.objects.GetObject({ caller: admin, object_id: String(ids.secret) })).object)).toMatchObject({ id: ids.secret, title: 'Secret' })
      await expect(save({ id: ids.secret, title: 'Secret, by the administrator' }, admin)).resolves.toMatchObject({ created: false })
      expect(await titleOfSecret()).toBe('Secret, by the administrator')
      await h.objects.ReplaceRelation({ caller: admin, object_id: 'hello', name: 'attach', related_id: ids.privimg, body_json: bodyOf({ priority: 4 }) })
      expect(await h.objects.GetRelation({ caller: member, object_id: 'hello', name: 'attach', related_id: ids.privimg })).toMatchObject({ priority: 4 })
      const listed = await h.objects.ListRelated({ caller: admin, object_id: 'hello', name: 'attach' })
      expect(listed.objects.map((o) => o.id)).toContain(ids.privimg)
      await save({ id: ids.secret, title: 'Secret' }, admin)
    })

    it('when the writer may read them, then the same writes go through', async () => {
      await expect(save({ id: ids.secret, title: 'changed' }, memberEditor)).resolves.toMatchObject({ created: false })
      expect(await titleOfSecret()).toBe('changed')
      await h.objects.ReplaceRelation({ caller: memberEditor, object_id: 'hello', name: 'attach', related_id: ids.privimg, body_json: bodyOf({ priority: 3 }) })
      await h.tree.UpdateChild({ caller: memberEditor, object_id: 'news', child_id: ids.secret, body_json: bodyOf({ priority: 1 }) })
      await h.objects.DeleteRelation({ caller: memberEditor, object_id: String(ids.privimg), name: 'attached_to', related_id: ids.doc1 })
      await h.objects.DeleteObject({ caller: memberEditor, object_id: String(ids.secret) })
      expect(await failure(h.objects.GetObject({ caller: member, object_id: String(ids.secret) }))).toMatchObject({ httpStatus: 404 })
    })
  })

  describe('DeleteObject', () => {
    it('when an object is deleted, then it and its links are gone, and a repeat is 404', async () => {
      await h.objects.DeleteObject({ caller: editor, object_id: 'hello' })
      expect(await failure(h.objects.GetObject({ caller: anonymous, object_id: 'hello' }))).toMatchObject({ httpStatus: 404 })
      expect(await h.objects.GetRelationSummary({ caller: anonymous, object_id: String(ids.img1) })).toEqual({ relations: [], object_id: ids.img1 })
      expect(await failure(h.objects.DeleteObject({ caller: editor, object_id: String(ids.doc1) }))).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
    })

    it('when a section still has children, or the publication is deleted, then 400', async () => {
      expect(await failure(h.objects.DeleteObject({ caller: editor, object_id: 'news' }))).toMatchObject({ httpStatus: 400 })
      expect(await failure(h.objects.DeleteObject({ caller: admin, object_id: '1' }))).toMatchObject({ httpStatus: 400 })
      expect(await failure(h.objects.DeleteObject({ caller: anonymous, object_id: 'hello' }))).toMatchObject({ httpStatus: 401 })
    })
  })

  describe('relations', () => {
    it('when relations are saved, then new ones are created with max+1 priority and existing ones updated', async () => {
      const res = await h.objects.SaveRelations({ caller: editor, object_id: 'hello', name: 'attach', body_json: bodyOf([
        { related_id: ids.img2 }, { related_id: ids.img1, priority: 9, params: { label: 'y' } }]) })
      expect(res.items).toEqual([
        { related_id: ids.img2, priority: 3, params_json: '', created: true },
        { related_id: ids.img1, priority: 9, params_json: '{"label":"y"}', created: false },
      ])
      const list = await h.objects.ListRelated({ caller: member, object_id: 'hello', name: 'attach' })
      expect(list.objects.map((o) => o.id)).toEqual([ids.privimg, ids.img2, ids.img1])
    })

    it('when a relation is replaced, then the missing value becomes null; an absent one is 404', async () => {
      expect(await h.objects.ReplaceRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img1, body_json: bodyOf({ priority: 4 }) })).toEqual({ priority: 4, params_json: '' })
      expect(await h.objects.GetRelation({ caller: anonymous, object_id: String(ids.img1), name: 'attached_to', related_id: ids.doc1 })).toMatchObject({ params_json: '' })
      expect(await failure(h.objects.ReplaceRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img2, body_json: bodyOf({ priority: 1 }) }))).toMatchObject({ httpStatus: 404, reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.ReplaceRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img1 }))).toMatchObject({ httpStatus: 400 })
    })

    it('when a relation is deleted, then both rows go and a repeat is 404', async () => {
      await h.objects.DeleteRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img1 })
      expect(await failure(h.objects.GetRelation({ caller: anonymous, object_id: String(ids.img1), name: 'attached_to', related_id: ids.doc1 }))).toMatchObject({ reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.DeleteRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img1 }))).toMatchObject({ httpStatus: 404, reason: 'RELATION_NOT_FOUND' })
    })

    it('when a related object is listed twice, then 400 and nothing is saved', async () => {
      const twice = [{ related_id: ids.img2 }, { related_id: ids.img2, priority: 4 }]
      expect(await failure(h.objects.SaveRelations({ caller: editor, object_id: 'hello', name: 'attach', body_json: bodyOf(twice) })))
        .toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED', details: { related_id: 'a related object is listed twice' } })
      expect(await failure(save({ object_type: 'document', parents: [1], relations: { attach: twice } })))
        .toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED', details: { 'relations.attach': `object ${ids.img2} is listed twice` } })
      const list = await h.objects.ListRelated({ caller: member, object_id: 'hello', name: 'attach' })
      expect(list.objects.map((o) => o.id)).not.toContain(ids.img2)
    })

    it('when a related object is unreachable or of a wrong type, then 400', async () => {
      const orphan = must((await importFixtures(h, { objects: [{ ref: 'o', object_type: 'image', title: 'Orphan' }] })).o)
      expect(await failure(h.objects.SaveRelations({ caller: editor, object_id: 'hello', name: 'attach', body_json: bodyOf([{ related_id: orphan }]) }))).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      expect(await failure(h.objects.SaveRelations({ caller: editor, object_id: 'hello', name: 'poster', body_json: bodyOf([{ related_id: ids.doc2 }]) }))).toMatchObject({ httpStatus: 400 })
    })
  })

  describe('children', () => {
    it('when children are saved, then new ones are appended and existing ones moved', async () => {
      const res = await h.tree.SaveChildren({ caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.doc2 }, { child_id: ids.event1, priority: 7 }]) })
      expect(res.items).toEqual([{ child_id: ids.doc2, priority: 2, created: true }, { child_id: ids.event1, priority: 7, created: false }])
      expect(await h.tree.GetChildPosition({ caller: anonymous, object_id: 'about', child_id: ids.event1 })).toEqual({ priority: 7 })
    })

    it('when a placement would make a cycle, give a section a second parent, or target a content, then 400', async () => {
      expect(await failure(h.tree.SaveChildren({ caller: editor, object_id: 'sub', body_json: bodyOf([{ child_id: ids.news }]) }))).toMatchObject({ httpStatus: 400 })
      expect(await failure(h.tree.SaveChildren({ caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.sub }]) }))).toMatchObject({ httpStatus: 400 })
      expect(await failure(h.tree.SaveChildren({ caller: editor, object_id: 'hello', body_json: bodyOf([{ child_id: ids.doc2 }]) }))).toMatchObject({ reason: 'NOT_A_TREE_NODE' })
    })

    it('when a child is updated or removed, then it answers; absent children are 404 and sections cannot be orphaned', async () => {
      expect(await h.tree.UpdateChild({ caller: editor, object_id: 'news', child_id: ids.doc2, body_json: bodyOf({ priority: 1 }) })).toEqual({ priority: 1 })
      expect(await failure(h.tree.UpdateChild({ caller: editor, object_id: 'news', child_id: ids.img1, body_json: bodyOf({ priority: 1 }) }))).toMatchObject({ httpStatus: 404, reason: 'CHILD_NOT_FOUND' })
      await h.tree.RemoveChild({ caller: editor, object_id: 'news', child_id: ids.doc2 })
      expect(await failure(h.tree.RemoveChild({ caller: editor, object_id: 'news', child_id: ids.doc2 }))).toMatchObject({ httpStatus: 404, reason: 'CHILD_NOT_FOUND' })
      expect(await failure(h.tree.RemoveChild({ caller: editor, object_id: 'news', child_id: ids.sub }))).toMatchObject({ httpStatus: 400 })
      expect(await failure(h.tree.RemoveChild({ caller: member, object_id: 'news', child_id: ids.doc1 }))).toMatchObject({ httpStatus: 403 })
    })
  })

  it('when any write commits, then its events are in the outbox and the answer names a number at or after them', async () => {
    const before = h.store.committedSeq()
    const seqs: number[] = []
    const onHeaders = (headers: Record<string, string>) => { seqs.push(Number(headers['x-change-seq'])) }
    await h.objects.SaveObject({ caller: editor, body_json: bodyOf({ id: ids.doc1, title: 'x' }), writable_types: WRITABLE }, { onHeaders })
    await h.tree.UpdateChild({ caller: editor, object_id: 'news', child_id: ids.doc2, body_json: bodyOf({ priority: 1 }) }, { onHeaders })
    await h.objects.DeleteRelation({ caller: editor, object_id: 'hello', name: 'attach', related_id: ids.img1 }, { onHeaders })
    const events = await h.store.changes.after(before, 100)
    expect(events.map((e) => [e.type, e.object_id])).toEqual([['object.updated', ids.doc1], ['child.updated', ids.doc2], ['relation.deleted', ids.doc1]])
    expect(seqs).toEqual(events.map((e) => e.seq))
  })

  it('when a read answers, then it names every object it looked at, the parent of a list included', async () => {
    let said = ''
    await h.tree.ListTree({ caller: anonymous, object_id: 'news', kind: 'CHILDREN' }, { onHeaders: (hd) => { said = hd['x-depends-on'] ?? '' } })
    const named = said.split(',').map(Number)
    expect(named).toContain(ids.news)
    expect(named).toEqual(expect.arrayContaining([ids.doc1]))
  })
})
