import { availableParallelism } from 'node:os'
import sharp from 'sharp'
import type { Size } from '../core/types.js'

/** A file path (local store) or the bytes themselves. */
export type ImageInput = string | Buffer

export interface ImageProbe {
  /** sharp's name of the format: jpeg, png, gif, webp, heif, tiff, … */
  format: string
  /** as displayed: EXIF orientation applied */
  width: number
  height: number
  /** width × height of the stored raster, from the header */
  pixels: number
}

export interface RenderSpec extends Size {
  format: 'jpeg' | 'png'
}

/** The image work of the service; the one place that knows sharp. */
export interface Imaging {
  /** Reads the header only: never decodes the pixels. */
  probe(input: ImageInput): Promise<ImageProbe>
  /** Decodes the whole image (cheaply: shrink-on-load); rejects truncated or corrupt data. */
  verifyDecodes(input: ImageInput): Promise<void>
  /** Orientation applied, cover-cropped to exactly the size, metadata stripped. */
  renderThumbnail(input: ImageInput, spec: RenderSpec): Promise<Buffer>
  /** A neutral picture at exactly the size, as PNG. */
  renderPlaceholder(size: Size): Promise<Buffer>
}

export interface ImagingOptions {
  /** UPLOAD_MAX_PIXELS: nothing larger is ever decoded */
  maxPixels: number
  /** RENDER_TIMEOUT_MS: a decode or render taking longer is abandoned */
  timeoutMs: number
  /** RENDER_CONCURRENCY: renders at once, sharing the cores */
  renderConcurrency: number
}

/** A decode only has to touch every byte, not produce a large raster: JPEGs shrink while loading. */
const VERIFY_SIDE = 256

let configured = false

/** Once per process: no decoded-image cache (memory stays bounded), libvips threads shared by the renders. */
function configure (renderConcurrency: number): void {
  if (configured) return
  configured = true
  sharp.cache(false)
  sharp.concurrency(Math.max(1, Math.floor(availableParallelism() / renderConcurrency)))
}

export function createImaging (options: ImagingOptions): Imaging {
  configure(options.renderConcurrency)
  const timeout = { seconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)) }
  const decoding = (input: ImageInput, sequentialRead = false) =>
    sharp(input, { limitInputPixels: options.maxPixels, failOn: 'error', sequentialRead }).timeout(timeout)

  return {
    async probe (input) {
      const m = await sharp(input, { limitInputPixels: false }).metadata()
      if (!m.width || !m.height) throw new Error('the image header has no dimensions')
      const shown = m.autoOrient ?? { width: m.width, height: m.height }
      return { format: m.format, width: shown.width, height: shown.height, pixels: m.width * m.height }
    },
    async verifyDecodes (input) {
      await decoding(input, true).resize(VERIFY_SIDE, VERIFY_SIDE, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer()
    },
    async renderThumbnail (input, spec) {
      const pipeline = decoding(input).rotate().resize(spec.width, spec.height, { fit: 'cover', position: 'centre' })
      return spec.format === 'jpeg'
        ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer()
        : pipeline.png().toBuffer()
    },
    async renderPlaceholder (size) {
      return sharp(Buffer.from(placeholderSvg(size))).png({ palette: true }).toBuffer()
    },
  }
}

/** A light frame with a simple picture icon (a sun over hills), centred, half the shorter side. */
function placeholderSvg ({ width, height }: Size): string {
  const side = Math.min(width, height) * 0.5
  const x = (width - side) / 2
  const y = (height - side) / 2
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="#eceff1"/>` +
    `<g transform="translate(${x} ${y}) scale(${side / 24})" fill="none" stroke="#b0bec5" stroke-width="1.5" stroke-linejoin="round">` +
    '<rect x="2" y="4" width="20" height="16" rx="2"/><circle cx="8.5" cy="9.5" r="1.8"/><path d="M3 18l5.5-6 4 4 3-3 5.5 5"/>' +
    '</g></svg>'
}
