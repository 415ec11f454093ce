import { once } from 'node:events'
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { LiveOutput } from '../../src/live/live-output.js'

/** A server whose every request is answered by piping a fresh LiveOutput into the response, as fastify sends a stream reply. */
async function serve (onOutput: (out: LiveOutput) => void, beforePipe?: (out: LiveOutput) => void): Promise<{ port: number, server: http.Server }> {
  const server = http.createServer((_req, res) => {
    const out = new LiveOutput()
    out.send('retry: 1000\n\n')
    beforePipe?.(out)
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    out.pipe(res)
    onOutput(out)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  servers.push(server)
  return { port: (server.address() as AddressInfo).port, server }
}
const servers: http.Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

describe('LiveOutput', () => {
  it('when piped into a response, then what was sent before and after reaches the client as one chunked body, in order, and finish ends it with the connection kept', async () => {
    let output: LiveOutput | undefined
    const { port } = await serve((out) => { output = out })
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, host: '127.0.0.1', agent }, resolve))
    expect(res.headers['transfer-encoding']).toBe('chunked')
    const connection = res.socket
    let text = ''
    res.on('data', (chunk: Buffer) => { text += String(chunk) })
    const frame = Buffer.from('id: 1.s\nevent: object.created\ndata: {}\n\n')
    output?.send(frame)
    output?.send(frame)
    output?.send(': ping\n\n')
    output?.finish()
    await once(res, 'end')
    expect(text).toBe(`retry: 1000\n\n${frame}${frame}: ping\n\n`)
    // the response ended cleanly: the next request goes over the same connection
    const again = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, host: '127.0.0.1', agent }, resolve))
    expect(again.socket).toBe(connection)
    again.resume()
    agent.destroy()
  })

  it('when it finished before the response took it, then the client still gets what was sent, then the end', async () => {
    const { port } = await serve(() => {}, (out) => {
      out.send('event: shutdown\ndata: {}\n\n')
      out.finish()
    })
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, host: '127.0.0.1' }, resolve))
    let text = ''
    res.on('data', (chunk: Buffer) => { text += String(chunk) })
    await once(res, 'end')
    expect(text).toBe('retry: 1000\n\nevent: shutdown\ndata: {}\n\n')
  })

  it('when the client leaves, then the output closes; when the output is destroyed, then the client\'s connection is cut', async () => {
    const outputs: LiveOutput[] = []
    const { port } = await serve((out) => outputs.push(out))
    const first = http.get({ port, host: '127.0.0.1' })
    first.on('error', () => {})
    const res = (await once(first, 'response'))[0] as http.IncomingMessage
    res.resume()
    res.on('error', () => {})
    const closed = once(outputs[0] as LiveOutput, 'close')
    first.destroy()
    await closed

    const second = http.get({ port, host: '127.0.0.1' })
    const res2 = (await once(second, 'response'))[0] as http.IncomingMessage
    res2.resume()
    res2.on('error', () => {})
    const cut = new Promise((resolve) => res2.on('close', resolve))
    outputs[1]?.destroy()
    await cut
    expect(res2.complete).toBe(false)
  })

  it('when the client does not read, then what it leaves unread is counted', async () => {
    let output: LiveOutput | undefined
    const { port } = await serve((out) => { output = out })
    const socket = net.connect(port, '127.0.0.1')
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n')
    socket.pause()
    while (output === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
    const bytes = Buffer.alloc(64 * 1024, 0x61)
    for (let i = 0; i < 200 && (output?.unread ?? 0) < 1024 * 1024; i++) {
      output?.send(bytes)
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(output?.unread).toBeGreaterThanOrEqual(1024 * 1024)
    socket.destroy()
  })

  it('when the request is HTTP/1.0, then the body is the bytes as sent, not chunked, and ends with the connection', async () => {
    let output: LiveOutput | undefined
    const { port } = await serve((out) => { output = out })
    const socket = net.connect(port, '127.0.0.1')
    socket.write('GET / HTTP/1.0\r\n\r\n')
    let raw = ''
    socket.on('data', (chunk: Buffer) => { raw += String(chunk) })
    while (output === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
    output.send('data: 1\n\n')
    output.finish()
    await once(socket, 'close')
    expect(raw.split('\r\n\r\n')[1]).toBe('retry: 1000\n\ndata: 1\n\n')
  })

  it('when not piped into a response, then it is a plain readable of what was sent', async () => {
    const out = new LiveOutput()
    out.send('a')
    out.send(Buffer.from('b'))
    out.finish()
    let text = ''
    for await (const chunk of out) text += String(chunk)
    expect(text).toBe('ab')
    expect(out.unread).toBe(0)
  })
})
