// The live-streams run's reader of a gateway's Server-Sent Events: the object.created events out of the
// bytes as they come. Only an unfinished frame is held, never the stream, so a stream may stay open for as
// long as a run lasts.

const CREATED = Buffer.from('\nevent: object.created\ndata: ')
const OBJECT_ID = Buffer.from('"object_id":')
const TIMESTAMP = Buffer.from('"timestamp":"')
const QUOTE = 0x22

/**
 * The `object.created` events of a gateway's stream (its frames as live-frames.ts writes them: LF line
 * ends, the `event:` line after `id:`), read from the bytes as they come, without decoding them as text or
 * splitting lines: a thousand streams bring a hundred thousand such events a second, and a reader of the
 * whole format (now the test's oracle) took most of a core for them, which the system under test then lacked. Calls
 * `onCreated(objectId, committedAt)` for each, `committedAt()` parsing the event's timestamp only when
 * asked. A frame cut between chunks waits for its end.
 */
export function createdReader (onCreated) {
  let rest = null
  return (chunk) => {
    const bytes = rest === null ? chunk : Buffer.concat([rest, chunk])
    const end = bytes.lastIndexOf('\n\n')
    if (end < 0) {
      rest = bytes
      return
    }
    for (let at = bytes.indexOf(CREATED); at >= 0 && at < end; at = bytes.indexOf(CREATED, at + CREATED.length)) {
      const data = at + CREATED.length
      let i = bytes.indexOf(OBJECT_ID, data) + OBJECT_ID.length
      if (bytes[i] === QUOTE) i++
      let id = ''
      for (; bytes[i] >= 0x30 && bytes[i] <= 0x39; i++) id += String.fromCharCode(bytes[i])
      onCreated(id, () => {
        const from = bytes.indexOf(TIMESTAMP, data) + TIMESTAMP.length
        return Date.parse(bytes.toString('latin1', from, bytes.indexOf(QUOTE, from)))
      })
    }
    rest = end + 2 < bytes.length ? bytes.subarray(end + 2) : null
  }
}
