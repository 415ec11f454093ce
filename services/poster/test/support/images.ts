import { createHash } from 'node:crypto'
import { createDeflate, crc32 } from 'node:zlib'
import sharp from 'sharp'
import { must } from './must.js'

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/**
 * A JPEG stored 400×200 — left half red, right half blue — with EXIF orientation 6 (shown rotated a
 * quarter turn clockwise: 200×400, red on top) and a GPS position.
 */
export async function orientedJpeg (): Promise<Buffer> {
  const half = (background: string) => sharp({ create: { width: 200, height: 200, channels: 3, background } }).png().toBuffer()
  return sharp({ create: { width: 400, height: 200, channels: 3, background: '#000' } })
    .composite([{ input: await half('#ff0000'), left: 0, top: 0 }, { input: await half('#0000ff'), left: 200, top: 0 }])
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '45/1 30/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '9/1 10/1 0/1' } })
    .toBuffer()
}

/** The EXIF block holds a GPS IFD pointer (tag 0x8825, either byte order). */
export function hasGpsTag (exif: Buffer | undefined): boolean {
  return exif !== undefined && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])))
}

/** A photo-like JPEG (smooth noise) of the given size. */
export async function photoJpeg (width: number, height: number): Promise<Buffer> {
  const noise = Buffer.alloc(width * height * 3)
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2_654_435_761) >>> 24
  return sharp(noise, { raw: { width, height, channels: 3 } }).blur(2).jpeg({ quality: 85 }).toBuffer()
}

export const smallPng = (width = 40, height = 30): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }).png().toBuffer()

function pngChunk (type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}

/** A valid 1-bit greyscale PNG of side × side pixels, all black: it compresses to almost nothing. */
export async function hugeBlankPng (side: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr[8] = 1 // bit depth
  ihdr[9] = 0 // greyscale
  const row = Buffer.alloc(1 + Math.ceil(side / 8)) // filter byte 0, then zero bits
  const deflate = createDeflate({ level: 9 })
  const parts: Buffer[] = []
  deflate.on('data', (c: Buffer) => parts.push(c))
  const done = new Promise((resolve) => deflate.on('end', resolve))
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve))
  deflate.end()
  await done
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, pngChunk('IHDR', ihdr), pngChunk('IDAT', Buffer.concat(parts)), pngChunk('IEND', Buffer.alloc(0))])
}

/** The colour at a point of an image, as [r, g, b]. */
export async function pixelAt (image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * info.channels
  return [must(data[at]), must(data[at + 1]), must(data[at + 2])]
}
