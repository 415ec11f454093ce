// Server-Sent Events read as they come (the text/event-stream format): text chunks in, whole events out.
// Only the unfinished line and the fields of the event being read are held, never the body, so a stream
// may stay open for as long as a run lasts.

/**
 * A function taking the stream's text, chunk by chunk (decoded: `res.setEncoding('utf8')` keeps a character
 * split between chunks whole), that calls `onEvent({ id, event, data })` for each event a blank line ends.
 * As an EventSource does: a comment (`: ping`) or a frame without `data` (`retry:`) is no event, `event`
 * defaults to `message`, several `data` lines join with a newline, and `id` holds until a frame sets another.
 */
export function sseReader (onEvent) {
  let rest = ''
  let id = ''
  let event = ''
  let data = null
  const field = (line) => {
    const colon = line.indexOf(':')
    const name = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1)
    if (name === 'id') id = value
    else if (name === 'event') event = value
    else if (name === 'data') data = data === null ? value : `${data}\n${value}`
  }
  return (chunk) => {
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
