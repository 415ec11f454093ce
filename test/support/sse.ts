/** One Server-Sent Event as a stream framed it. */
export interface SseEvent { id?: string, event: string, data: string }

export interface SseStream {
  status: number
  headers: Headers
  /** every event received so far, in order */
  events: SseEvent[]
  /** comment lines received so far (`: ping` → `ping`) */
  comments: string[]
  /** the body of a refused stream (JSON error) */
  text: string
  /** resolves with the first event (received or to come) that `match` takes; rejects after `timeoutMs` */
  until(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>
  /** resolves once the server ended the stream */
  ended: Promise<void>
  close(): void
}

/** Parses the frames of a text/event-stream body (the fields this API sends: id, event, data, retry, comments). */
export function parseFrames (text: string): { events: SseEvent[], comments: string[], rest: string } {
  const events: SseEvent[] = []
  const comments: string[] = []
  const blocks = text.split('\n\n')
  const rest = blocks.pop() ?? ''
  for (const block of blocks) {
    const event: SseEvent = { event: 'message', data: '' }
    let has = false
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) { comments.push(line.slice(1).trim()); continue }
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'id') { event.id = value; has = true } else if (field === 'event') { event.event = value; has = true } else if (field === 'data') { event.data = event.data === '' ? value : `${event.data}\n${value}`; has = true }
    }
    if (has) events.push(event)
  }
  return { events, comments, rest }
}

/** Opens `GET url` as an event stream and keeps reading it in the background. */
export async function openStream (url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController()
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const waiters = new Set<() => void>()
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    text: '',
    until (match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = stream.events.find(match)
          if (!found) return false
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(stream.events.map((e) => [e.event, e.data]))}`))
        }, timeoutMs)
        if (!check()) waiters.add(check)
      })
    },
    ended: Promise.resolve(),
    close: () => abort.abort(),
  }
  if (res.status !== 200 || res.body === null) {
    stream.text = await res.text()
    return stream
  }
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  stream.ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        const { events, comments, rest } = parseFrames(buffer)
        buffer = rest
        stream.events.push(...events)
        stream.comments.push(...comments)
        for (const waiter of [...waiters]) waiter()
      }
    } catch {
      // aborted by close()
    }
  })()
  return stream
}

/** The event's `data`, parsed. */
export const body = (e: SseEvent): { type: string, timestamp?: string, data: Record<string, unknown> } => JSON.parse(e.data)
