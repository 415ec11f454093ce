import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ResponseClient } from '../../src/http/response-client.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve))
})

/** A server that hands each request's response to `handle` and never answers on its own. */
async function serve (handle: (res: ServerResponse, req: IncomingMessage) => void): Promise<number> {
  const server = createServer((req, res) => handle(res, req))
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** Sends a GET; answers what destroys its connection, and the answer's body once it came. */
function get (port: number): { leave: () => void, body: Promise<string> } {
  const req = request({ port, host: '127.0.0.1', path: '/' })
  const body = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => resolve(text))
    })
    req.on('error', reject)
  })
  req.end()
  return { leave: () => req.destroy(), body }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('ResponseClient: whether a request\'s client went away', () => {
  it('when the client closes its connection before the answer, then it is gone, its listeners hear it and its signal aborts', async () => {
    let client: ResponseClient | undefined
    let response: ServerResponse | undefined
    const heard: string[] = []
    const port = await serve((res) => {
      response = res
      client = new ResponseClient(res)
      client.onGone(() => heard.push('first'))
      const stop = client.onGone(() => heard.push('stopped'))
      stop()
    })
    const call = get(port)
    call.body.catch(() => {})
    while (client === undefined) await tick()
    expect(client.gone).toBe(false)
    const signal = client.signal
    expect(signal.aborted).toBe(false)
    call.leave()
    while (heard.length === 0) await tick()
    expect(heard).toEqual(['first'])
    expect(client.gone).toBe(true)
    expect(signal.aborted).toBe(true)
    // asked after the client went: aborted from the start
    expect(new ResponseClient(response as ServerResponse).signal.aborted).toBe(true)
  })

  it('when the answer was sent in full, then the client is not gone, even once the connection closes', async () => {
    let client: ResponseClient | undefined
    const heard: string[] = []
    let closed = false
    const port = await serve((res) => {
      client = new ResponseClient(res)
      client.onGone(() => heard.push('gone'))
      res.on('close', () => { closed = true })
      res.setHeader('connection', 'close')
      res.end('answer')
    })
    await expect(get(port).body).resolves.toBe('answer')
    while (!closed) await tick()
    expect(heard).toEqual([])
    expect(client?.gone).toBe(false)
    expect(client?.signal.aborted).toBe(false)
  })
})
