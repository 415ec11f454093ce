import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MediaStore } from '../../src/store/media.store.js'

export interface OpenedStore {
  store: MediaStore
  cleanup(): Promise<void>
}

export interface ContractOptions {
  thumbnailMaxBytes: number
  now: () => number
}

const key = (n: number) => n.toString(16).padStart(64, '0')

async function readAll (stream: Readable | null): Promise<Buffer | null> {
  if (stream === null) return null
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

/** The behaviour every media store adapter must have; `open` gives a fresh, empty store. */
export function describeMediaStoreContract (name: string, open: (options: ContractOptions) => Promise<OpenedStore>): void {
  describe(`MediaStore contract (${name})`, () => {
    let opened: OpenedStore
    let scratch: string
    const clock = { now: 1_700_000_000_000 }
    beforeEach(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'media-contract-'))
      opened = await open({ thumbnailMaxBytes: 10_000, now: () => clock.now })
    })
    afterEach(async () => {
      await opened.cleanup()
      rmSync(scratch, { recursive: true, force: true })
    })

    /** A staged upload in the store's staging directory (or a scratch one). */
    const staged = (text: string | Buffer) => {
      const path = join(opened.store.originals.stagingDir, `contract-${Math.random().toString(36).slice(2)}`)
      writeFileSync(path, text)
      return path
    }
    const put = (k: string, text: string | Buffer) => opened.store.originals.put(k, staged(text), { mime_type: 'text/plain' })

    it('when an original is put twice, then it is stored once and read back whole or by span', async () => {
      const { originals } = opened.store
      expect(await put(key(1), 'hello world')).toBe('stored')
      expect(await put(key(1), 'hello world')).toBe('present')
      expect(await originals.stat(key(1))).toMatchObject({ key: key(1), size: 11 })
      expect((await readAll(await originals.open(key(1))))?.toString()).toBe('hello world')
      expect((await readAll(await originals.open(key(1), { start: 6, end: 10 })))?.toString()).toBe('world')
      expect((await readAll(await originals.open(key(1), { start: 0, end: 0 })))?.toString()).toBe('h')
    })

    it('when an original spans several chunks, then any span reads back exactly, across chunk boundaries too', async () => {
      const bytes = randomBytes(700 * 1024)
      expect(await put(key(11), bytes)).toBe('stored')
      expect(await opened.store.originals.stat(key(11))).toMatchObject({ size: bytes.length })
      expect((await readAll(await opened.store.originals.open(key(11))))?.equals(bytes)).toBe(true)
      for (const [start, end] of [[0, 0], [261_110, 261_150], [255 * 1024 - 1, 255 * 1024], [300_000, 600_000], [bytes.length - 1, bytes.length - 1]] as const) {
        expect((await readAll(await opened.store.originals.open(key(11), { start, end })))?.equals(bytes.subarray(start, end + 1)), `${start}-${end}`).toBe(true)
      }
    })

    it('when the same bytes are put twice at once, then both calls succeed, one stores them, and they read back whole', async () => {
      const bytes = randomBytes(600 * 1024)
      const outcomes = await Promise.all([put(key(12), bytes), put(key(12), bytes)])
      expect(outcomes.sort()).toEqual(['present', 'stored'])
      expect((await readAll(await opened.store.originals.open(key(12))))?.equals(bytes)).toBe(true)
    })

    it('when an original is not stored, then stat and open answer null', async () => {
      expect(await opened.store.originals.stat(key(2))).toBeNull()
      expect(await opened.store.originals.open(key(2))).toBeNull()
    })

    it('when a key is put again, then it counts as used from then on', async () => {
      await put(key(3), 'x')
      clock.now += 5_000
      await put(key(3), 'x')
      expect((await opened.store.originals.stat(key(3)))?.used).toBe(clock.now)
    })

    it('when asked for idle keys, then those unused since the limit come in key order, after the given key, a page at a time', async () => {
      for (const n of [5, 3, 9, 7]) await put(key(n), `v${n}`)
      clock.now += 1_000
      await put(key(4), 'fresh')
      const before = clock.now - 500
      expect(await opened.store.originals.idle(before, '', 10)).toEqual([key(3), key(5), key(7), key(9)])
      expect(await opened.store.originals.idle(before, '', 2)).toEqual([key(3), key(5)])
      expect(await opened.store.originals.idle(before, key(5), 2)).toEqual([key(7), key(9)])
      expect(await opened.store.originals.idle(before, key(9), 2)).toEqual([])
    })

    it('when removing an idle key, then it goes; a key used since the limit stays', async () => {
      await put(key(6), 'old')
      clock.now += 1_000
      await put(key(8), 'new')
      const before = clock.now - 500
      expect(await opened.store.originals.removeIfIdle(key(6), before)).toBe(true)
      expect(await opened.store.originals.removeIfIdle(key(8), before)).toBe(false)
      expect(await opened.store.originals.removeIfIdle(key(10), before)).toBe(false)
      expect(await opened.store.originals.stat(key(6))).toBeNull()
      expect(await opened.store.originals.stat(key(8))).not.toBeNull()
    })

    it('when a put and a removal of the same idle key race, then the key is stored afterwards, whole', async () => {
      for (let round = 0; round < 10; round++) {
        const k = key(100 + round)
        await put(k, `round ${round}`)
        clock.now += 1_000
        const before = clock.now - 500
        await Promise.all([opened.store.originals.removeIfIdle(k, before), put(k, `round ${round}`)])
        expect((await readAll(await opened.store.originals.open(k)))?.toString()).toBe(`round ${round}`)
      }
    })

    it('when thumbnails are put, then they read back; removing an original\'s thumbnails leaves the others', async () => {
      const { thumbnails } = opened.store
      await thumbnails.put(`${key(1)}-10x10.jpg`, key(1), Buffer.from('a'))
      await thumbnails.put(`${key(1)}-20x10.png`, key(1), Buffer.from('b'))
      await thumbnails.put(`${key(2)}-10x10.jpg`, key(2), Buffer.from('c'))
      await thumbnails.put('placeholder-10x10.png', 'placeholder', Buffer.from('p'))
      expect((await thumbnails.get(`${key(1)}-20x10.png`))?.toString()).toBe('b')
      expect(await thumbnails.get(`${key(3)}-10x10.jpg`)).toBeNull()
      expect(await thumbnails.removeFor(key(1))).toBe(2)
      expect(await thumbnails.get(`${key(1)}-10x10.jpg`)).toBeNull()
      expect((await thumbnails.get(`${key(2)}-10x10.jpg`))?.toString()).toBe('c')
      expect((await thumbnails.get('placeholder-10x10.png'))?.toString()).toBe('p')
    })

    it('when thumbnails pass the byte bound, then the least recently used go first', async () => {
      const { thumbnails } = opened.store
      const bytes = Buffer.alloc(3_000)
      for (const n of [1, 2, 3]) await thumbnails.put(`${key(n)}-1x1.png`, key(n), bytes)
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await thumbnails.get(`${key(1)}-1x1.png`)).not.toBeNull() // 1 is now the most recent
      await new Promise((resolve) => setTimeout(resolve, 20))
      await thumbnails.put(`${key(4)}-1x1.png`, key(4), bytes)
      expect(await thumbnails.get(`${key(2)}-1x1.png`)).toBeNull()
      for (const n of [1, 3, 4]) expect(await thumbnails.get(`${key(n)}-1x1.png`)).not.toBeNull()
      await thumbnails.put(`${key(5)}-1x1.png`, key(5), Buffer.alloc(20_000)) // larger than the bound: not kept
      expect(await thumbnails.get(`${key(5)}-1x1.png`)).toBeNull()
    })

    it('when a name or key is not one the service makes, then the store refuses it before touching anything', async () => {
      await expect(opened.store.originals.stat('../../etc/passwd')).rejects.toThrow()
      await expect(opened.store.thumbnails.put('../x.png', key(1), Buffer.from('x'))).rejects.toThrow()
    })
  })
}
