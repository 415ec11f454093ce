import { once } from 'node:events'
import { openClientStream, toTransportError } from '@content/platform'
import type { v1 } from '@content/protos'
import { ADMIN_TIMEOUT_MS, type AdminClients } from '../clients.js'
import type { ObjectRecord } from './format.js'
import { describeRpcError } from '../rpc-errors.js'
import type { FileSink } from './batches.js'
import { BackupError } from './lines.js'

/**
 * Streams one media object's file to the poster service, which checks it as it checks uploads and stores
 * it (ImportFile); `finish` answers what it stored. Nothing is attached until an object write names it.
 */
export function posterSink (clients: Pick<AdminClients, 'poster' | 'userToken'>, record: ObjectRecord): FileSink {
  const file = record.file as NonNullable<ObjectRecord['file']>
  const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(
    clients.poster.raw.ImportFile.bind(clients.poster.raw), { timeoutMs: ADMIN_TIMEOUT_MS, userToken: clients.userToken })
  let refused = false
  response.catch(() => { refused = true })
  stream.write({ header: { object_type: record.object_type, file_name: file.name, mime_type: file.mime_type, declared_size: file.size } })
  return {
    async push (bytes) {
      // a refusal ends the call early: the rest is not sent, and finish reports the refusal
      if (refused) return
      if (!stream.write({ chunk: bytes })) await Promise.race([once(stream, 'drain'), response.catch(() => undefined)])
    },
    async finish () {
      stream.end()
      try {
        return await response
      } catch (err) {
        if (!toTransportError(err).expose) throw err
        throw new BackupError(`object ${record.id}: its file is refused: ${describeRpcError(err)}`)
      }
    },
  }
}
