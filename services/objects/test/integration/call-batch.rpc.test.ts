import { status } from '@grpc/grpc-js'
import { userTokenFor } from '@content/platform/testing'
import { RESPONSE_HEADERS, type v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { NOW } from './site.fixture.js'
import { admin, editor, harnessTest, member, stranger, WRITABLE } from './harness.js'
import { must } from '../support/must.js'
import { bodyOf } from '../support/write-body.js'

describe('ObjectService.CallBatch: reads of several callers in one call', () => {
  const { h, ids } = harnessTest({ now: NOW, per: 'file' })

  const later = () => Date.now() + 5_000

  it('when an authorised and an anonymous caller read a protected object in one batch, then each gets only what it may read', async () => {
    const memberToken = must(await userTokenFor(member))
    const strangerToken = must(await userTokenFor(stranger))
    const { answers } = await h.objects.CallBatch({
      calls: [
        { request_id: 'a', user_token: memberToken, deadline_ms: later(), get_object: { object_id: 'secret' } },
        // a caller field is never believed: the member's own token (none here) decides
        { request_id: 'b', deadline_ms: later(), get_object: { object_id: 'secret', caller: { user_id: 1, groups: ['administrator'] } } },
        { request_id: 'c', user_token: strangerToken, deadline_ms: later(), get_object: { object_id: 'secret' } },
        { request_id: 'd', user_token: 'not-a-token', deadline_ms: later(), get_object: { object_id: 'secret' } },
      ],
    })
    expect(answers.map((a) => [a.code, a.reason])).toEqual([
      [status.OK, ''], [status.UNAUTHENTICATED, 'OBJECT_PROTECTED'], [status.PERMISSION_DENIED, 'PERMISSION_DENIED'], [status.UNAUTHENTICATED, 'TOKEN_INVALID'],
    ])
    expect(must(must(answers[0]).get_object).object?.id).toBe(ids.secret)
    for (const refused of answers.slice(1)) expect(refused.get_object ?? null).toBeNull()
  })

  it('when a batch is served, then each member answers exactly as its own unary call, headers included', async () => {
    const heard: Record<string, string>[] = []
    const alone = await h.objects.GetObject({ caller: member, object_id: String(ids.doc1) }, { onHeaders: (x) => heard.push(x) })
    const list = await h.tree.ListTree({ caller: admin, object_id: 'news', kind: 'CHILDREN', page: { page: 1, page_size: 20 } }, { onHeaders: (x) => heard.push(x) })
    const { answers } = await h.objects.CallBatch({
      calls: [
        { user_token: await userTokenFor(member), deadline_ms: later(), get_object: { object_id: String(ids.doc1) } },
        { user_token: await userTokenFor(admin), deadline_ms: later(), list_tree: { object_id: 'news', kind: 'CHILDREN', page: { page: 1, page_size: 20 } } },
        { deadline_ms: later(), get_object: { object_id: 'no-such-object' } },
      ],
    })
    const [one, two, three] = answers.map((a) => must(a))
    expect(one?.get_object).toEqual(alone)
    expect(two?.list).toEqual(list)
    expect(one?.headers['x-depends-on']).toBe(heard[0]?.['x-depends-on'])
    expect(two?.headers['x-depends-on']).toBe(heard[1]?.['x-depends-on'])
    expect([three?.code, three?.reason, three?.headers_sent]).toEqual([status.NOT_FOUND, 'OBJECT_NOT_FOUND', false])
  })

  it('when members ask the same read, then each gets the answer its own call would, whoever else asked it', async () => {
    const page = { object_id: 'news', kind: 'CHILDREN' as const, page: { page: 1, page_size: 20 } }
    const asMember = await h.tree.ListTree({ caller: member, ...page })
    const asAnonymous = await h.tree.ListTree({ ...page })
    const memberToken = await userTokenFor(member)
    const { answers } = await h.objects.CallBatch({
      calls: [
        { user_token: memberToken, deadline_ms: later(), list_tree: page },
        { deadline_ms: later(), list_tree: page },
        { user_token: memberToken, deadline_ms: later(), list_tree: page },
        { deadline_ms: later(), list_tree: page },
      ],
    })
    expect(answers.map((a) => a.list)).toEqual([asMember, asAnonymous, asMember, asAnonymous])
    expect(asMember).not.toEqual(asAnonymous) // the section holds an object only members read
  })

  it('when the sender takes references (refers_same), then a member asking what an earlier one asked with the same token names that answer instead of a copy', async () => {
    const page = { object_id: 'news', kind: 'CHILDREN' as const, page: { page: 1, page_size: 20 } }
    const memberToken = await userTokenFor(member)
    const calls: v1.BatchedCall[] = [
      { user_token: memberToken, deadline_ms: later(), list_tree: page },
      { deadline_ms: later(), list_tree: page },
      { user_token: memberToken, deadline_ms: later(), list_tree: page },
      { deadline_ms: later(), list_tree: page },
      { deadline_ms: later(), get_object: { object_id: 'no-such-object' } },
      { deadline_ms: later(), get_object: { object_id: 'no-such-object' } },
    ]
    const copies = await h.objects.CallBatch({ calls })
    const { answers } = await h.objects.CallBatch({ calls, refers_same: true })
    expect(answers.map((a) => a.same_as)).toEqual([0, 0, 1, 2, 0, 5])
    // the first of each is the answer it was without references; a reference carries nothing else
    for (const i of [0, 1, 4]) expect(answers[i]).toEqual(copies.answers[i])
    for (const i of [2, 3, 5]) {
      expect(answers[i]).toMatchObject({ code: status.OK, message: '', reason: '', headers: {}, headers_sent: false })
      expect(answers[i]?.list ?? answers[i]?.get_object ?? null).toBeNull()
    }
    // without references every member carries its own copy, as before
    expect(copies.answers.map((a) => a.same_as)).toEqual([0, 0, 0, 0, 0, 0])
    expect(copies.answers[2]).toEqual(copies.answers[0])
    expect(copies.answers[5]).toEqual(copies.answers[4])
  })

  it('when a gateway of the release before calls ReadBatch, then it is answered as CallBatch', async () => {
    const calls = [{ deadline_ms: later(), get_object: { object_id: String(ids.doc1) } }, { deadline_ms: later(), get_object: { object_id: 'no-such-object' } }]
    const old = await h.objects.ReadBatch({ calls })
    expect(old).toEqual(await h.objects.CallBatch({ calls }))
    expect(old.answers.map((a) => a.code)).toEqual([status.OK, status.NOT_FOUND])
  })

  it('when a member is past its own deadline, then it alone answers DEADLINE_EXCEEDED', async () => {
    const { answers } = await h.objects.CallBatch({
      calls: [
        { deadline_ms: Date.now() - 1, get_object: { object_id: String(ids.doc1) } },
        { deadline_ms: later(), get_object: { object_id: String(ids.doc1) } },
      ] satisfies v1.BatchedCall[],
    })
    expect(answers.map((a) => a.code)).toEqual([status.DEADLINE_EXCEEDED, status.OK])
  })
})

describe('ObjectService.CallBatch: saves of several callers in one call', () => {
  const { h, ids } = harnessTest({ now: NOW })

  const later = () => Date.now() + 5_000
  const HASH = 'a'.repeat(64)
  const create = (title: string, extra: Partial<v1.SaveObjectRequest> = {}): v1.SaveObjectRequest =>
    ({ body_json: bodyOf({ object_type: 'document', title, parents: [ids.news] }), writable_types: WRITABLE, ...extra })
  const titlesUnderNews = async () => {
    const list = await h.tree.ListTree({ caller: admin, object_id: 'news', kind: 'CHILDREN', page: { page: 1, page_size: 100 } })
    return list.objects.map((o) => o.title).filter((t) => t?.startsWith('batched'))
  }

  it('when callers with different rights save in one batch, then each gets what its own call would, and one failure fails no other', async () => {
    const editorToken = must(await userTokenFor(editor))
    const { answers } = await h.objects.CallBatch({
      calls: [
        { request_id: 'a', user_token: editorToken, deadline_ms: later(), save_object: create('batched one') },
        // a caller field is never believed: the member's own token (a stranger's) decides
        { request_id: 'b', user_token: must(await userTokenFor(stranger)), deadline_ms: later(), save_object: create('batched refused', { caller: admin }) },
        { request_id: 'c', user_token: editorToken, deadline_ms: later(), save_object: { body_json: bodyOf({ object_type: 'document' }), writable_types: WRITABLE } },
        { request_id: 'd', deadline_ms: later(), save_object: create('batched anonymous') },
        { request_id: 'e', user_token: editorToken, deadline_ms: later(), save_object: create('batched two') },
      ],
    })
    expect(answers.map((a) => [a.code, a.reason])).toEqual([
      [status.OK, ''], [status.PERMISSION_DENIED, 'PERMISSION_DENIED'], [status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      [status.UNAUTHENTICATED, 'AUTHENTICATION_REQUIRED'], [status.OK, ''],
    ])
    const [one, , , , two] = answers
    expect([one?.save_object?.created, one?.save_object?.object?.title]).toEqual([true, 'batched one'])
    expect([two?.save_object?.created, two?.save_object?.object?.title]).toEqual([true, 'batched two'])
    // each save's answer says which change it follows, as its own call's headers would
    for (const ok of [one, two]) expect(Number(ok?.headers[RESPONSE_HEADERS.changeSeq])).toBeGreaterThan(0)
    expect((await titlesUnderNews()).sort()).toEqual(['batched one', 'batched two'])
  })

  it('when a batch carries a save equal to one before it, with the same idempotency key, then the object is made once and the repeat is answered as a replay', async () => {
    const editorToken = must(await userTokenFor(editor))
    const once = create('batched once', { idempotency_key: 'k', request_hash: HASH })
    const { answers } = await h.objects.CallBatch({
      calls: [
        { user_token: editorToken, deadline_ms: later(), save_object: once },
        { user_token: editorToken, deadline_ms: later(), save_object: once },
      ],
    })
    expect(answers.map((a) => a.code)).toEqual([status.OK, status.OK])
    expect(answers[0]?.save_object?.object?.id).toBe(answers[1]?.save_object?.object?.id)
    expect(answers.map((a) => a.headers[RESPONSE_HEADERS.idempotentReplayed] ?? 'false').sort()).toEqual(['false', 'true'])
    expect(await titlesUnderNews()).toEqual(['batched once'])
  })

  it('when 100 updates of one object run at once, as calls of their own or members of one batch, then each answers the object as that update left it', async () => {
    const versions = (from: number) => Array.from({ length: 100 }, (_, i) => `version ${from + i}`)
    const update = (title: string): v1.SaveObjectRequest => ({ body_json: bodyOf({ id: ids.doc1, title }), writable_types: WRITABLE })
    const own = await Promise.all(versions(0).map((title) => h.objects.SaveObject({ caller: editor, ...update(title) })))
    expect(own.map((a) => a.object?.title)).toEqual(versions(0))
    const editorToken = must(await userTokenFor(editor))
    const { answers } = await h.objects.CallBatch({ calls: versions(100).map((title) => ({ user_token: editorToken, deadline_ms: later(), save_object: update(title) })) })
    expect(answers.map((a) => a.save_object?.object?.title)).toEqual(versions(100))
    // the members are concurrent saves, committed in no promised order (each reaches the store after its
    // own token check): what stays is the batch's update that committed last, its newest revision
    const stays = (await h.objects.GetObject({ caller: editor, object_id: String(ids.doc1) })).object?.title
    expect(versions(100)).toContain(stays)
    const [newest] = (await h.objects.ListRevisions({ caller: editor, object_id: String(ids.doc1), page: { page: 1, page_size: 1 } })).revisions
    expect(JSON.parse(must(newest).data_json)).toMatchObject({ title: stays })
  })

  it('when a save is past its own deadline, then it alone answers DEADLINE_EXCEEDED and is not made', async () => {
    const editorToken = must(await userTokenFor(editor))
    const { answers } = await h.objects.CallBatch({
      calls: [
        { user_token: editorToken, deadline_ms: Date.now() - 1, save_object: create('batched late') },
        { user_token: editorToken, deadline_ms: later(), save_object: create('batched in time') },
      ],
    })
    expect(answers.map((a) => a.code)).toEqual([status.DEADLINE_EXCEEDED, status.OK])
    expect(await titlesUnderNews()).toEqual(['batched in time'])
  })
})
