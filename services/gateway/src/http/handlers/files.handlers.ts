import { openClientStream } from '@content/platform'
import type { v1 } from '@content/protos'
import { envelope } from '../envelope.js'
import { forwardBody } from '../media/upload-stream.js'
import { callOptions, ok, requireCaller, type Handler, type HandlerDeps, type RequestContext } from '../context.js'

const DECLARED_SIZE = /^[0-9]{1,15}$/

/** Content-Length as sent; -1 for a chunked body. */
function declaredSize (header: string | undefined): number {
  return header !== undefined && DECLARED_SIZE.test(header) ? Number(header) : -1
}

/** Everything the poster service checks before reading a byte (decisions §12: the order of checks). */
function uploadHeader (ctx: RequestContext, deps: HandlerDeps): v1.UploadHeader {
  return {
    object_type: ctx.params.objectType ?? '',
    file_name: ctx.params.fileName ?? '',
    mime_type: ctx.headers['content-type'] ?? '',
    declared_size: declaredSize(ctx.headers['content-length']),
    writable_types: [...deps.table.writableTypes],
  }
}

function receiptData (receipt: v1.UploadReceipt__Output, now: number): Record<string, unknown> {
  const file = receipt.file
  if (!file) throw new Error('Upload answered without a file')
  const data: Record<string, unknown> = {
    upload_token: receipt.upload_token,
    expires_in: Math.max(0, Math.floor((receipt.expires_at - now) / 1000)),
    name: file.name,
    mime_type: file.mime_type,
    file_size: file.size,
  }
  if (file.width > 0 && file.height > 0) Object.assign(data, { width: file.width, height: file.height })
  return data
}

/**
 * POST /files/{object_type}/{file_name}: the raw body streams to the poster service as it arrives.
 * The poster service may refuse before the body is complete (type, size): reading stops at once and
 * the dispatcher closes the connection, so the rest is never read.
 */
export const upload: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const body = ctx.rawBody
  if (!body) throw new Error('an upload route without its request stream')
  const raw = deps.clients.poster.raw
  const { stream, response } = openClientStream<v1.UploadPart, v1.UploadReceipt__Output>(
    raw.Upload.bind(raw), { ...callOptions(ctx), timeoutMs: deps.streamTimeoutMs })
  stream.write({ header: uploadHeader(ctx, deps) })
  const forwarding = forwardBody(body, stream, ctx.client.signal)
  let receipt: v1.UploadReceipt__Output
  try {
    receipt = await Promise.race([response, forwarding.done.then(() => response)])
  } finally {
    forwarding.stop()
  }
  return ok(envelope(ctx.info, 'files', receiptData(receipt, deps.now())))
}
