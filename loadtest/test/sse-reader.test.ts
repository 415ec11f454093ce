/** The live-streams run's reader of Server-Sent Events: whole events out, whatever the chunks. */
import { describe, expect, it } from 'vitest'
import { type SseEvent, sseReader } from '../autocannon/sse-reader.mjs'

const STREAM = [
  'retry: 3000\n\n',
  ': ping\n\n',
  'id: 7.store-a\nevent: object.created\ndata: {"type":"object.created","data":{"object_id":"12"}}\n\n',
  'event: child.added\r\ndata: first\r\ndata: second\r\n\r\n',
  'id: 9.store-a\ndata: é, kept whole\n\n',
  'event: shutdown\ndata: {"type":"shutdown"}\n',
].join('')

const EXPECTED: SseEvent[] = [
  { id: '7.store-a', event: 'object.created', data: '{"type":"object.created","data":{"object_id":"12"}}' },
  { id: '7.store-a', event: 'child.added', data: 'first\nsecond' },
  { id: '9.store-a', event: 'message', data: 'é, kept whole' },
]

function read (chunks: string[]): SseEvent[] {
  const events: SseEvent[] = []
  const feed = sseReader((e) => events.push(e))
  for (const chunk of chunks) feed(chunk)
  return events
}

describe('sseReader', () => {
  it('when the stream comes whole, then each event with data comes out once, comments and retry frames none, an unfinished one not yet', () => {
    expect(read([STREAM])).toEqual(EXPECTED)
  })

  it('when the stream is cut at any point, or comes a character at a time, then the same events come out', () => {
    for (let cut = 1; cut < STREAM.length; cut++) expect(read([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED)
    expect(read([...STREAM])).toEqual(EXPECTED)
  })

  it('when the blank line that ends the last event arrives, then it comes out', () => {
    expect(read([STREAM, '\n']).at(-1)).toEqual({ id: '9.store-a', event: 'shutdown', data: '{"type":"shutdown"}' })
  })
})
