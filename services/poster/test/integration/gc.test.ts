import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { v1 } from '@content/protos'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '@content/platform'
import { newCollectorLoop, startCollecting, stopCollecting } from '../../src/services/gc.js'
import { failure, READER, sleep, startPoster, thumbnailRequest, uploadHeader, type Harness } from '../support/harness.js'
import { smallPng } from '../support/images.js'
import { must } from '../support/must.js'

const GRACE_MS = 600_000

describe('the media collector', () => {
  let h: Harness
  beforeEach(async () => { h = await startPoster() })
  afterEach(async () => { await h.close() })

  const upload = async (text: string) =>
    must(((await h.upload(uploadHeader({ object_type: 'b_e_file', file_name: `${text}.txt`, mime_type: 'text/plain' }), Buffer.from(text))) as v1.UploadReceipt__Output).file)

  it('when originals are idle past the grace, then unused ones go with their thumbnails; used, pending and recent ones stay', async () => {
    const png = must(((await h.upload(uploadHeader({ file_name: 'u.png', mime_type: 'image/png' }), await smallPng())) as v1.UploadReceipt__Output).file)
    const [used, pending] = [await upload('used'), await upload('pending')]
    h.fake.registered.splice(0) // nothing pending, except:
    h.fake.registered.push({ caller: null, object_type: 'b_e_file', file: pending, upload_token: 't' })
    h.fake.used.add(used.key)
    h.fake.put({ id: 50, object_type: 'image', free_access: true, file: png })
    const thumb = thumbnailRequest((await h.getPoster(READER, { object_id: '50' })).thumbnail_path)
    await h.thumbnail(thumb)
    expect(h.files('thumbnails')).toHaveLength(1)

    h.clock.offset = GRACE_MS + 1_000
    const recent = await upload('recent')
    const counts = await h.sweep(GRACE_MS)

    expect(counts).toEqual({ scanned: 3, removed: 1 })
    expect(h.files('originals').sort()).toEqual([used.key, pending.key, recent.key].sort())
    expect(h.files('thumbnails')).toEqual([])
    expect(await failure(h.thumbnail(thumb))).toMatchObject({ httpStatus: 404, reason: 'THUMBNAIL_NOT_FOUND' })
    h.fake.objects.set(50, { id: 50, object_type: 'image', free_access: true, file: png })
    expect(await failure(h.original({ caller: READER, object_id: '50', file_name: 'u.png', if_range: '' }))).toMatchObject({ reason: 'FILE_NOT_FOUND' })
  })

  it('when bytes are uploaded again after they were found idle, then they survive the sweep', async () => {
    const file = await upload('again')
    h.clock.offset = GRACE_MS + 1_000
    // the upload refreshes the key between the listing and the removal
    const idle = await h.store.originals.idle(h.now() - GRACE_MS, '', 10)
    expect(idle).toEqual([file.key])
    await upload('again')
    expect(await h.store.originals.removeIfIdle(file.key, h.now() - GRACE_MS)).toBe(false)
    expect(await h.sweep(GRACE_MS)).toEqual({ scanned: 0, removed: 0 })
    expect(h.files('originals')).toEqual([file.key])
  })

  it('when there are more idle originals than a page, then every page is asked about, at most 500 keys at a time', async () => {
    for (let i = 0; i < 520; i++) await h.store.originals.put(i.toString(16).padStart(64, '0'), await staged(h, `${i}`), { mime_type: 'text/plain' })
    h.clock.offset = GRACE_MS + 1_000
    expect(await h.sweep(GRACE_MS)).toEqual({ scanned: 520, removed: 520 })
    expect(h.fake.filesInUseAsked.map((keys) => keys.length)).toEqual([500, 20])
    expect(h.files('originals')).toEqual([])
  })

  it('when the objects service cannot be asked, then nothing is removed, the failure is logged and the loop goes on until stopped', async () => {
    const file = await upload('kept')
    h.clock.offset = GRACE_MS + 1_000
    const lines: { level: string, msg: string }[] = []
    const log = {
      info: (_o: object, msg: string) => { lines.push({ level: 'info', msg }) },
      error: (_o: object, msg: string) => { lines.push({ level: 'error', msg }) },
    } as unknown as Logger
    const down = { filesInUse: async (): Promise<string[]> => { throw new Error('objects service down') } }
    const collector = { store: h.store, objects: down, log, now: h.now, intervalMs: 20, graceMs: GRACE_MS, loop: newCollectorLoop() }
    startCollecting(collector)
    for (let i = 0; i < 100 && lines.length < 3; i++) await sleep(20)
    await stopCollecting(collector)
    const seen = lines.length
    await sleep(80)
    expect(lines.length).toBe(seen)
    expect(seen).toBeGreaterThanOrEqual(3)
    expect(lines.every((l) => l.level === 'error')).toBe(true)
    expect(h.files('originals')).toEqual([file.key])
  })

  it('when the loop runs and the objects service answers, then each sweep logs one line with its counts', async () => {
    await upload('gone')
    h.clock.offset = GRACE_MS + 1_000
    const lines: { fields: Record<string, unknown>, msg: string }[] = []
    const log = { info: (fields: Record<string, unknown>, msg: string) => { lines.push({ fields, msg }) }, error: () => {} } as unknown as Logger
    const collector = { store: h.store, objects: { filesInUse: async () => [] }, log, now: h.now, intervalMs: 20, graceMs: GRACE_MS, loop: newCollectorLoop() }
    startCollecting(collector)
    for (let i = 0; i < 100 && lines.length < 2; i++) await sleep(20)
    await stopCollecting(collector)
    expect(lines[0]).toMatchObject({ msg: 'media collected', fields: { scanned: 1, removed: 1, kept: 0 } })
    expect(lines[1]).toMatchObject({ fields: { scanned: 0, removed: 0 } })
    expect(h.files('originals')).toEqual([])
  })
})

async function staged (h: Harness, text: string): Promise<string> {
  const path = join(h.store.originals.stagingDir, `s-${text}`)
  await writeFile(path, text)
  return path
}
