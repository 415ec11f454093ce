import { createHash } from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { keyOf, NOW } from './site.fixture.js'
import { admin, anonymous, editor, failure, harnessTest, importFixtures, member, stranger, WRITABLE } from './harness.js'
import { must } from '../support/must.js'
import { bodyOf } from '../support/write-body.js'
const TTL = 60_000
/** Another editor: tokens are bound to their uploader, not to a group. */
const eve = { user_id: 3, groups: ['editor'] }
const fileOf = (name: string, over: object = {}) => ({ key: keyOf(name), name, mime_type: 'image/png', size: 100, width: 4, height: 3, ...over })
const UNUSABLE = { upload_token: 'unknown, expired or already used' }

describe('MediaService over gRPC', () => {
  const { h, ids } = harnessTest({ now: NOW, uploadTtlMs: TTL })

  const register = async (name: string, caller = editor, objectType = 'image', over: object = {}) =>
    (await h.media.RegisterUpload({ caller, object_type: objectType, file: fileOf(name, over) })).upload_token
  const save = (data: object, caller = editor) => h.objects.SaveObject({ caller, body_json: bodyOf(data), writable_types: WRITABLE })
  const createImage = (token: string, caller = editor) => save({ object_type: 'image', title: 'Pic', parents: [ids.news], upload_token: token }, caller)
  const inUse = async (...names: string[]) => (await h.media.FilesInUse({ keys: names.map(keyOf) })).keys

  describe('AuthorizeUpload', () => {
    const authorize = (caller: object, objectType: string) => h.media.AuthorizeUpload({ caller, object_type: objectType, writable_types: WRITABLE })

    it.each([
      ['an anonymous caller', 401, 'AUTHENTICATION_REQUIRED', anonymous, 'image'],
      ['a caller outside the writer groups', 403, 'PERMISSION_DENIED', member, 'image'],
      ['a caller outside the writer groups and a type that takes no file', 403, 'PERMISSION_DENIED', member, 'document'],
      ['an unknown type', 400, 'UNKNOWN_OBJECT_TYPE', editor, 'photo'],
      ['a media type not writable here', 400, 'TYPE_NOT_WRITABLE', editor, 'audio'],
      ['the publication\'s type', 400, 'TYPE_NOT_WRITABLE', admin, 'area'],
      ['a type that takes no file', 400, 'TYPE_TAKES_NO_FILE', editor, 'document'],
    ])('when asked by %s, then %i %s', async (_label, status, reason, caller, objectType) => {
      expect(await failure(authorize(caller, objectType))).toMatchObject({ httpStatus: status, reason })
    })

    it('when a writer asks for a writable media type, then the upload may go ahead', async () => {
      await expect(authorize(editor, 'image')).resolves.toEqual({})
      await expect(authorize({ user_id: 9, groups: ['writers'], may_write: true }, 'b_e_file')).resolves.toEqual({})
    })
  })

  describe('RegisterUpload', () => {
    it('when the file is well formed, then an opaque token is answered that expires after the TTL; only its hash is stored', async () => {
      const ticket = await h.media.RegisterUpload({ caller: editor, object_type: 'image', file: fileOf('a.png') })
      expect(ticket.upload_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(ticket.expires_at).toBe(NOW + TTL)
      const hash = createHash('sha256').update(ticket.upload_token).digest('hex')
      expect(await h.store.uploads.get(hash, NOW)).toMatchObject({ user_id: editor.user_id, object_type: 'image', file: fileOf('a.png') })
      expect(await h.store.uploads.get(ticket.upload_token, NOW)).toBeNull()
      expect(await register('a.png')).not.toBe(ticket.upload_token)
    })

    it.each([
      ['a key that is not a SHA-256', { key: 'a'.repeat(63) }, 'file.key'],
      ['a name with a slash', { name: '../etc/passwd' }, 'file.name'],
      ['a name with a control character', { name: 'a\u0000.png' }, 'file.name'],
      ['a name over 255 bytes', { name: 'é'.repeat(128) }, 'file.name'],
      ['a MIME type that is not type/subtype', { mime_type: 'png' }, 'file.mime_type'],
      ['an empty file', { size: 0 }, 'file.size'],
      ['a negative width', { width: -3 }, 'file.width'],
    ])('when the poster service sends %s, then 400 names %s and nothing is stored', async (_label, over, field) => {
      const f = await failure(h.media.RegisterUpload({ caller: editor, object_type: 'image', file: { ...fileOf('a.png'), ...over } }))
      expect(f).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      expect(Object.keys(f.details as object)).toEqual([field])
      expect(await inUse('a.png')).toEqual([])
    })

    it.each([
      ['no file', 400, 'VALIDATION_FAILED', editor, 'image'],
      ['an anonymous caller', 401, 'AUTHENTICATION_REQUIRED', anonymous, 'image'],
      ['a caller outside the writer groups', 403, 'PERMISSION_DENIED', member, 'image'],
      ['an unknown type', 400, 'UNKNOWN_OBJECT_TYPE', editor, 'photo'],
      ['a type that takes no file', 400, 'TYPE_TAKES_NO_FILE', editor, 'event'],
    ])('when the request has %s, then %i %s', async (label, status, reason, caller, objectType) => {
      const file = label === 'no file' ? undefined : fileOf('a.png')
      expect(await failure(h.media.RegisterUpload({ caller, object_type: objectType, file }))).toMatchObject({ httpStatus: status, reason })
    })
  })

  describe('SaveObject with upload_token', () => {
    it('when an object is created with a token, then it carries the file and reads show it', async () => {
      const res = await createImage(await register('a.png'))
      expect(res).toMatchObject({ created: true, object: { object_type: 'image', file: fileOf('a.png') } })
      const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(must(res.object).id) })
      expect(object).toMatchObject({ file: fileOf('a.png') })
    })

    it('when an object is updated with a new token, then its file is replaced and the old key is released', async () => {
      const { object } = await createImage(await register('a.png'))
      const updated = await save({ id: must(object).id, title: 'New pic', upload_token: await register('b.png') })
      expect(updated).toMatchObject({ created: false, object: { title: 'New pic', file: fileOf('b.png') } })
      expect(await inUse('a.png', 'b.png')).toEqual([keyOf('b.png')])
    })

    it('when a token is used twice, then the second use is 400 and changes nothing', async () => {
      const token = await register('a.png')
      const { object } = await createImage(token)
      expect(await failure(createImage(token))).toMatchObject({ httpStatus: 400, reason: 'UPLOAD_TOKEN_INVALID', details: UNUSABLE })
      expect(await failure(save({ id: must(object).id, title: 'x', upload_token: token }))).toMatchObject({ httpStatus: 400, details: UNUSABLE })
      expect(must((await h.objects.GetObject({ caller: anonymous, object_id: String(must(object).id) })).object).title).toBe('Pic')
    })

    it('when another user presents a token, then 400 as for an unknown one, and its owner can still use it', async () => {
      const token = await register('a.png')
      expect(await failure(createImage(token, eve))).toMatchObject({ httpStatus: 400, reason: 'UPLOAD_TOKEN_INVALID', details: UNUSABLE })
      expect(await failure(createImage('made-up'))).toMatchObject({ httpStatus: 400, reason: 'UPLOAD_TOKEN_INVALID', details: UNUSABLE })
      await expect(createImage(token)).resolves.toMatchObject({ created: true })
    })

    it('when the token has expired, then 400 as for an unknown one', async () => {
      const token = await register('a.png')
      h.clock.now = NOW + TTL
      expect(await failure(createImage(token))).toMatchObject({ httpStatus: 400, reason: 'UPLOAD_TOKEN_INVALID', details: UNUSABLE })
    })

    it('when the object type differs from the upload\'s, then 400 naming both, and the token still works for its type', async () => {
      const token = await register('a.png')
      const f = await failure(save({ object_type: 'video', parents: [ids.news], upload_token: token }))
      expect(f).toMatchObject({ httpStatus: 400, reason: 'UPLOAD_TOKEN_INVALID', details: { upload_token: 'the upload is for an image, not a video' } })
      expect(await failure(save({ id: ids.doc1, upload_token: token }))).toMatchObject({ details: { upload_token: 'the upload is for an image, not a document' } })
      await expect(createImage(token)).resolves.toMatchObject({ created: true })
    })

    it('when the write is refused for another reason, then the token is not consumed', async () => {
      const token = await register('a.png')
      expect(await failure(save({ object_type: 'image', parents: [99_999], upload_token: token }))).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      expect(await failure(save({ object_type: 'image', parents: [ids.news], upload_token: token }, member))).toMatchObject({ httpStatus: 403 })
      await expect(createImage(token)).resolves.toMatchObject({ created: true })
    })

    it('when two writes use one token at once, then exactly one succeeds', async () => {
      const token = await register('a.png')
      const results = await Promise.allSettled([createImage(token), createImage(token), createImage(token)])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      for (const r of results.filter((r) => r.status === 'rejected')) {
        expect(await failure(Promise.reject(r.reason))).toMatchObject({ reason: 'UPLOAD_TOKEN_INVALID', details: UNUSABLE })
      }
    })

    it('when the token is used between the check and the write, then 400 and the object is not created', async () => {
      const token = await register('a.png')
      const get = h.store.uploads.get.bind(h.store.uploads)
      let raced = false
      h.store.uploads.get = async (hash, now) => {
        const upload = await get(hash, now)
        if (!raced) {
          raced = true
          h.store.uploads.get = get
          await createImage(token) // a concurrent request wins
        }
        return upload
      }
      const before = must((await h.tree.ListTree({ caller: anonymous, object_id: 'news', kind: 'CHILDREN' })).paging).total
      expect(await failure(save({ object_type: 'image', title: 'Loser', parents: [ids.news], upload_token: token }))).toMatchObject({ httpStatus: 400, details: UNUSABLE })
      const children = await h.tree.ListTree({ caller: anonymous, object_id: 'news', kind: 'CHILDREN' })
      expect(must(children.paging).total).toBe(before + 1)
      expect(children.objects.map((o) => o.title)).not.toContain('Loser')
    })
  })

  describe('FilesInUse', () => {
    it('when objects and uploads come and go, then the keys in use follow them', async () => {
      const first = await register('a.png')
      expect(await inUse('a.png', 'b.png')).toEqual([keyOf('a.png')])
      const { object } = await createImage(first)
      expect(await inUse('a.png', 'b.png')).toEqual([keyOf('a.png')])
      await register('b.png') // pending, never attached
      expect(await inUse('b.png', 'a.png')).toEqual([keyOf('b.png'), keyOf('a.png')])
      h.clock.now = NOW + TTL
      expect(await inUse('a.png', 'b.png')).toEqual([keyOf('a.png')])
      await h.objects.DeleteObject({ caller: editor, object_id: String(must(object).id) })
      // in the trash the file waits for a restore (decisions §16); the purge releases it
      expect(await inUse('a.png', 'b.png')).toEqual([keyOf('a.png')])
      await h.objects.PurgeTrashed({ caller: editor, object_id: String(must(object).id) })
      expect(await inUse('a.png', 'b.png')).toEqual([])
    })

    it('when two objects share bytes, then the key stays in use until the last one goes', async () => {
      const a = must((await createImage(await register('same.png'))).object).id
      const b = must((await createImage(await register('same.png'))).object).id
      await h.objects.DeleteObject({ caller: editor, object_id: String(a) })
      await h.objects.PurgeTrashed({ caller: editor, object_id: String(a) })
      expect(await inUse('same.png')).toEqual([keyOf('same.png')])
      await h.objects.DeleteObject({ caller: editor, object_id: String(b) })
      await h.objects.PurgeTrashed({ caller: editor, object_id: String(b) })
      expect(await inUse('same.png')).toEqual([])
    })

    it('when a key is asked twice, then it is answered once; no keys, no answer', async () => {
      await register('a.png')
      expect(await inUse('a.png', 'a.png')).toEqual([keyOf('a.png')])
      expect(await inUse()).toEqual([])
    })

    it.each([
      ['a key that is not one', ['../../etc/passwd'], 'is not a content key'],
      ['an upper-case key', ['AB'.repeat(32)], 'is not a content key'],
      ['more than 1000 keys', Array.from({ length: 1001 }, (_, i) => keyOf(String(i))), 'at most 1000 keys per call'],
    ])('when the request has %s, then 400 naming keys', async (_label, keys, message) => {
      const f = await failure(h.media.FilesInUse({ keys }))
      expect(f).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
      expect((f.details as { keys: string }).keys).toContain(message)
    })
  })

  describe('GetMedia', () => {
    let refs: Record<string, number>
    const video = fileOf('v.mp4', { mime_type: 'video/mp4', width: 0, height: 0 })
    beforeEach(async () => {
      refs = await importFixtures(h, { objects: [
        {
          ref: 'page', object_type: 'document', title: 'Page', parents: ['@publication'],
          relations: {
            poster: [{ related: 'late', priority: 2 }, { related: 'early', priority: 1 }, { related: 'draftposter', priority: 0 }],
            attach: [{ related: 'clip', priority: 1 }, { related: 'locked', priority: 2 }, { related: 'att', priority: 3 }],
          },
        },
        { ref: 'early', object_type: 'image', title: 'Early', file: fileOf('early.png') },
        { ref: 'late', object_type: 'image', title: 'Late' },
        { ref: 'draftposter', object_type: 'image', status: 'draft', file: fileOf('draft.png') },
        { ref: 'clip', object_type: 'video', file: video },
        { ref: 'locked', object_type: 'image', permissions: { read: ['members'] }, file: fileOf('locked.png') },
        { ref: 'att', object_type: 'image', title: 'Att' },
        { ref: 'bare', object_type: 'document', title: 'Bare', parents: ['@publication'] },
      ] })
    })
    const getMedia = (objectId: string, caller: object = anonymous, withCandidates = true) =>
      h.media.GetMedia({ caller, object_id: objectId, with_candidates: withCandidates })

    it('when candidates are asked, then the first visible image of poster and of attach answer, by priority, skipping what the caller cannot see and what is no image', async () => {
      const subject = await getMedia(String(refs.page))
      expect(subject).toEqual({
        object: { id: refs.page, object_type: 'document', free_access: true },
        poster: { id: refs.early, object_type: 'image', file: fileOf('early.png'), free_access: true },
        attached: { id: refs.att, object_type: 'image', free_access: true },
      })
      const asMember = await getMedia(String(refs.page), member)
      expect(asMember.attached).toEqual({ id: refs.locked, object_type: 'image', file: fileOf('locked.png'), free_access: false })
    })

    it('when the object has no related image, or candidates are not asked, then only the object answers', async () => {
      expect(await getMedia('bare')).toEqual({ object: { id: refs.bare, object_type: 'document', free_access: true } })
      expect(await getMedia(String(refs.page), anonymous, false)).toEqual({ object: { id: refs.page, object_type: 'document', free_access: true } })
      expect(await getMedia(String(refs.clip))).toEqual({ object: { id: refs.clip, object_type: 'video', file: video, free_access: true } })
    })

    it.each([
      ['an unknown object', 404, 'OBJECT_NOT_FOUND', () => '99999', anonymous],
      ['a draft', 404, 'OBJECT_NOT_FOUND', () => String(refs.draftposter), anonymous],
      ['a protected object asked anonymously', 401, 'OBJECT_PROTECTED', () => String(refs.locked), anonymous],
      ['a protected object asked by a stranger', 403, 'PERMISSION_DENIED', () => String(refs.locked), stranger],
      ['an empty id', 400, 'INVALID_OBJECT_ID', () => '', anonymous],
      ['an id out of range', 400, 'INVALID_OBJECT_ID', () => '0', anonymous],
    ])('when asked for %s, then %i %s as reads answer', async (_label, status, reason, id, caller) => {
      expect(await failure(getMedia(id(), caller))).toMatchObject({ httpStatus: status, reason })
    })

    it('when a reader may read a protected image, then it answers it as not free', async () => {
      expect((await getMedia(String(refs.locked), member, false)).object).toMatchObject({ id: refs.locked, free_access: false, file: fileOf('locked.png') })
    })
  })
})
