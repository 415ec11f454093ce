import { DomainError } from '@content/platform'

/** The header of an upload stream, as the gateway (or the admin tool) sends it: every field hostile. */
export interface UploadHeaderIn {
  object_type: string
  file_name: string
  mime_type: string
  declared_size: number
  writable_types: string[]
}

export interface UploadPartIn {
  header?: UploadHeaderIn | null
  chunk?: Buffer
}

const malformed = (why: string) => new DomainError('MALFORMED_UPLOAD', `the upload stream is malformed: ${why}`)

/** Waits for the next message, or rejects as soon as the call is cancelled. */
function nextOrAbort<T> (it: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    it.next().then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** An upload stream's first message: its header. */
export async function readHeader (parts: AsyncIterator<UploadPartIn>, signal: AbortSignal): Promise<UploadHeaderIn> {
  const first = await nextOrAbort(parts, signal)
  if (first.done === true || !first.value.header) throw malformed('it must start with the header')
  return first.value.header
}

/** The body's bytes after the header; stopping early (a refusal) stops reading the call. */
export async function * readChunks (parts: AsyncIterator<UploadPartIn>, signal: AbortSignal): AsyncGenerator<Buffer> {
  let done = false
  try {
    for (;;) {
      const next = await nextOrAbort(parts, signal)
      if (next.done === true) {
        done = true
        return
      }
      if (next.value.header) throw malformed('a second header')
      if (next.value.chunk && next.value.chunk.length > 0) yield next.value.chunk
    }
  } finally {
    if (!done) void parts.return?.()?.catch(() => undefined)
  }
}
