import { request } from 'node:http'
import { deflateSync } from 'node:zlib'
import sharp from 'sharp'
import { http, type Reply } from './system.js'

/**
 * A photograph-like JPEG (gradients and noise, so it compresses like a photo) stored 300×200 with EXIF
 * orientation 6 — displayed 200×300 — and GPS coordinates that must never reach a thumbnail.
 */
export async function photo (seed = 1, width = 300, height = 200): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3)
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * seed * 7 + ((i * 2654435761) >>> 24)) & 0xff
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '45/1 4/1 0/1' } })
    .withMetadata({ orientation: 6 })
    .toBuffer()
}

export const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 0.5 } } }).png().toBuffer()

function chunk (type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

function crc32 (bytes: Buffer): number {
  let c = ~0
  for (const b of bytes) {
    c ^= b
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1))
  }
  return ~c >>> 0
}

/** A valid 1-bit grayscale PNG of `side`×`side` pixels, all black: 30,000² is 900 megapixels in ~110 KB. */
export function pngBomb (side = 30_000): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr.writeUInt8(1, 8) // bit depth
  ihdr.writeUInt8(0, 9) // grayscale
  const row = Math.ceil(side / 8) + 1 // filter byte + packed bits
  const raw = Buffer.alloc(row * side)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A short silent PCM WAV. */
export function wav (samples = 8_000): Buffer {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + samples * 2, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(8_000, 24)
  header.writeUInt32LE(16_000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(samples * 2, 40)
  return Buffer.concat([header, Buffer.alloc(samples * 2)])
}

/**
 * POST /files/{type}/{name} with raw bytes. The path goes out exactly as written (fetch would resolve
 * `..` and `%2E%2E` segments before sending them).
 */
export function upload (base: string, token: string | undefined, type: string, name: string, bytes: Buffer, contentType?: string): Promise<Reply> {
  const headers: Record<string, string> = { 'content-length': String(bytes.length) }
  if (token) headers.authorization = `Bearer ${token}`
  if (contentType) headers['content-type'] = contentType
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method: 'POST', path: `/files/${type}/${name}`, headers }, (res) => {
      let text = ''
      res.on('data', (c) => { text += String(c) })
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        headers: new Headers(Object.entries(res.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : []))),
        body: text ? JSON.parse(text) : undefined,
      }))
    })
    req.on('error', reject)
    req.end(bytes)
  })
}

/** Uploads and creates a media object from the upload; answers the created object. */
export async function createMedia (base: string, token: string, options: { type: string, name: string, bytes: Buffer, contentType: string, parents: number[], title?: string }) {
  const up = await upload(base, token, options.type, options.name, options.bytes, options.contentType)
  if (up.status !== 200) throw new Error(`upload answered ${up.status}: ${JSON.stringify(up.body)}`)
  const created = await http(base, 'POST', '/objects', {
    headers: { authorization: `Bearer ${token}` },
    body: { data: { object_type: options.type, title: options.title ?? options.name, parents: options.parents, upload_token: up.body.data.upload_token } },
  })
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`)
  return created.body.data.object as Record<string, Reply['body']>
}

export interface Bytes { status: number, headers: Headers, bytes: Buffer }

/** GET of a URL answering bytes (a thumbnail, an original). */
export async function getBytes (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Bytes> {
  const res = await fetch(url, { method, headers })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

/**
 * Sends `total` bytes in 64 KiB chunks, slowly — declared with Content-Length, or chunked — and answers how
 * many had been written when the response arrived: a refusal must come before the client finished.
 */
export function slowUpload (url: string, token: string, total: number, options: { declared: boolean }): Promise<{ status: number, body: Reply['body'], sentWhenAnswered: number, connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = false
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'image/jpeg' }
    if (options.declared) headers['content-length'] = String(total)
    const req = request(url, { method: 'POST', headers }, (res) => {
      answered = true
      const at = sent
      let text = ''
      res.on('data', (c) => { text += String(c) })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, sentWhenAnswered: at, connection: res.headers.connection }))
    })
    req.on('error', (err) => { if (!answered) reject(err) })
    const piece = Buffer.alloc(64 * 1024, 0xab)
    const pump = () => {
      if (answered || sent >= total || req.destroyed) return
      const n = Math.min(piece.length, total - sent)
      sent += n
      req.write(piece.subarray(0, n), () => setTimeout(pump, 2))
      if (sent >= total) req.end()
    }
    pump()
  })
}
