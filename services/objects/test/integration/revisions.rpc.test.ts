import { describe, expect, it } from 'vitest'
import { NOW } from './site.fixture.js'
import { admin, anonymous, editor, failure, harnessTest, member, WRITABLE } from './harness.js'
import { must } from '../support/must.js'
import { bodyOf } from '../support/write-body.js'

const memberEditor = { user_id: 7, groups: ['editor', 'members'] }

describe('revisions over gRPC (decisions §16)', () => {
  const { h, ids } = harnessTest({ now: NOW })
  const save = (data: object, caller = editor) => h.objects.SaveObject({ caller, body_json: bodyOf(data), writable_types: WRITABLE })

  it('when an editor updates, regrets and restores, then the fields come back as a new revision, and the restore is an update event', async () => {
    const created = must((await save({ object_type: 'document', title: 'Draft one', description: 'first', parents: [ids.news] })).object).id
    h.clock.now = NOW + 1_000
    await save({ id: created, title: 'Draft two', body: 'added later' })
    const list = await h.objects.ListRevisions({ caller: editor, object_id: String(created), page: { page: 1, page_size: 10 } })
    expect(list.revisions.map((r) => [r.revision, r.changed, r.user_id])).toEqual([[2, ['title', 'body'], editor.user_id], [1, ['title', 'description'], editor.user_id]])
    expect(list.paging).toMatchObject({ total: 2, page_count: 2 })
    const first = must((await h.objects.GetRevision({ caller: editor, object_id: String(created), revision: 1 })).revision)
    expect(JSON.parse(first.data_json)).toMatchObject({ title: 'Draft one', description: 'first', body: null })
    expect(first.created).toBe(NOW)

    const before = h.store.committedSeq()
    const restored = await h.objects.RestoreRevision({ caller: editor, object_id: String(created), revision: 1 })
    // every field of revision 1: the body set later goes back to null
    expect(restored.object).toMatchObject({ id: created, title: 'Draft one', description: 'first' })
    expect(must(restored.object).body).toBeUndefined()
    expect((await h.store.changes.after(before, 10)).map((e) => e.type)).toEqual(['object.updated'])
    const after = await h.objects.ListRevisions({ caller: editor, object_id: String(created), page: { page: 1, page_size: 1 } })
    expect(after.revisions.map((r) => [r.revision, r.changed])).toEqual([[3, ['title', 'body']]])
  })

  it('when asked without write and read rights, or for a revision that is not there, then 401, 403, 404', async () => {
    await save({ id: ids.secret, title: 'Secret 2' }, memberEditor)
    const listOf = (caller: object, objectId: string) => h.objects.ListRevisions({ caller, object_id: objectId, page: { page: 1, page_size: 10 } })
    expect(await failure(listOf(anonymous, 'hello'))).toMatchObject({ httpStatus: 401, reason: 'AUTHENTICATION_REQUIRED' })
    expect(await failure(listOf(member, 'hello'))).toMatchObject({ httpStatus: 403, reason: 'PERMISSION_DENIED' })
    // an editor outside the protected object's read group
    expect(await failure(listOf(editor, String(ids.secret)))).toMatchObject({ httpStatus: 403 })
    expect(await failure(h.objects.GetRevision({ caller: editor, object_id: String(ids.secret), revision: 1 }))).toMatchObject({ httpStatus: 403 })
    expect(await failure(h.objects.RestoreRevision({ caller: editor, object_id: String(ids.secret), revision: 1 }))).toMatchObject({ httpStatus: 403 })
    expect((await listOf(memberEditor, String(ids.secret))).revisions.map((r) => r.revision)).toEqual([1])
    expect((await listOf(admin, String(ids.secret))).revisions.map((r) => r.revision)).toEqual([1])
    expect(await failure(listOf(editor, 'no-such-object'))).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
    expect(await failure(h.objects.GetRevision({ caller: editor, object_id: 'hello', revision: 7 }))).toMatchObject({ httpStatus: 404, reason: 'REVISION_NOT_FOUND' })
    expect(await failure(h.objects.RestoreRevision({ caller: editor, object_id: 'hello', revision: 0 }))).toMatchObject({ httpStatus: 404, reason: 'REVISION_NOT_FOUND' })
  })
})
