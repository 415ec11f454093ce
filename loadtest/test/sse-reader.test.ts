import { describe, expect, it } from 'vitest'
import { createdReader } from '../autocannon/sse-reader.mjs'

interface SseEvent { id: string, event: string, data: string }

/**
 * The oracle of createdReader: the text/event-stream format read as an EventSource reads it. A function
 * taking the stream's text, chunk by chunk (decoded: `res.setEncoding('utf8')` keeps a character split
 * between chunks whole), that calls `onEvent({ id, event, data })` for each event a blank line ends.
 * As an EventSource does: a comment (`: ping`) or a frame without `data` (`retry:`) is no event, `event`
 * defaults to `message`, several `data` lines join with a newline, and `id` holds until a frame sets another.
 */
function sseReader (onEvent: (e: SseEvent) => void): (chunk: string) => void {
  let rest = ''
  let id = ''
  let event = ''
  let data: string | null = null
  const field = (line: string) => {
    const colon = line.indexOf(':')
    const name = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1)
    if (name === 'id') id = value
    else if (name === 'event') event = value
    else if (name === 'data') data = data === null ? value : `${data}\n${value}`
  }
  return (chunk: string) => {
    const text = rest + chunk
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const line = text.slice(start, text[end - 1] === '\r' ? end - 1 : end)
      start = end + 1
      if (line === '') {
        if (data !== null) onEvent({ id, event: event || 'message', data })
        event = ''
        data = null
      } else if (line[0] !== ':') {
        field(line)
      }
    }
    rest = text.slice(start)
  }
}

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

/** Frames as the gateway writes them (live-frames.ts), with a frame of another type and a ping between. */
const GATEWAY = [
  'retry: 1000\n\n',
  'id: 7.s\nevent: object.created\ndata: {"type":"object.created","timestamp":"2026-12-03T10:00:00.125Z","data":{"seq":7,"object_id":12,"object_type":"document"}}\n\n',
  'id: 8.s\nevent: child.added\ndata: {"type":"child.added","timestamp":"2026-12-03T10:00:00.130Z","data":{"seq":8,"object_id":5,"related_id":12}}\n\n',
  ': ping\n\n',
  'id: 9.s\nevent: object.created\ndata: {"type":"object.created","timestamp":"2026-12-03T10:00:01.000Z","data":{"seq":9,"object_id":"345","object_type":"event"}}\n\n',
].join('')

function created (chunks: Buffer[]): [string, number][] {
  const seen: [string, number][] = []
  const feed = createdReader((id, committedAt) => seen.push([id, committedAt()]))
  for (const chunk of chunks) feed(chunk)
  return seen
}

describe('createdReader', () => {
  const expected = read([GATEWAY]).filter((e) => e.event === 'object.created').map((e) => {
    const body = JSON.parse(e.data) as { timestamp: string, data: { object_id: number | string } }
    return [String(body.data.object_id), Date.parse(body.timestamp)]
  })

  it('when the gateway\'s frames come whole, then each object.created comes out once with its object id and commit time, as the general reader reads them', () => {
    expect(expected).toHaveLength(2)
    expect(created([Buffer.from(GATEWAY)])).toEqual(expected)
  })

  it('when they are cut at any byte, then the same events come out, an unfinished one not yet', () => {
    const bytes = Buffer.from(GATEWAY)
    for (let cut = 1; cut < bytes.length; cut++) expect(created([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected)
    expect(created([bytes.subarray(0, bytes.length - 1)])).toEqual(expected.slice(0, 1))
  })
})
