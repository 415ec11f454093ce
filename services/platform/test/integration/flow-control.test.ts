import { createServer, type Http2Server, type Settings } from 'node:http2'
import { afterEach, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { createClient, FLOW_CONTROL_WINDOW } from '../../src/rpc/client.js'
import { testIdentity } from '../../src/testing.js'

// A coalesced batch's answer runs to a megabyte: with HTTP/2's default window of 64 KiB the backend had to
// wait for a WINDOW_UPDATE every 64 KiB. The clients' channels advertise a larger window, per call and per
// connection; a bare HTTP/2 server hears what a client announces before its first call.
const { PosterService } = loadContentProtos().content.v1

const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

interface Heard { settings: Settings, connectionWindow: number }

/** An HTTP/2 server that records the first call's connection settings and window, then refuses the call. */
async function listening (): Promise<{ port: number, heard: Promise<Heard> }> {
  const server: Http2Server = createServer()
  const heard = new Promise<Heard>((resolve) => {
    server.on('stream', (stream) => {
      const session = stream.session
      if (session) resolve({ settings: session.remoteSettings, connectionWindow: session.state.remoteWindowSize ?? 0 })
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())))
  const address = server.address()
  return { port: typeof address === 'object' && address ? address.port : 0, heard }
}

describe('the flow-control window of the clients', () => {
  it.each(['calls', 'stream'] as const)('a %s channel lets a backend send FLOW_CONTROL_WINDOW bytes ahead, on each call and on the connection', async (channel) => {
    const { port, heard } = await listening()
    const client = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(PosterService, `127.0.0.1:${port}`, { timeoutMs: 2_000, identity: testIdentity('test').identity, channel })
    cleanup.push(() => client.close())
    // the server answers UNIMPLEMENTED: only what the client announced matters here
    await expect(client.GetStats({})).rejects.toMatchObject({ code: 12 })
    const { settings, connectionWindow } = await heard
    expect(FLOW_CONTROL_WINDOW).toBeGreaterThanOrEqual(1024 * 1024)
    expect(settings.initialWindowSize).toBe(FLOW_CONTROL_WINDOW)
    expect(connectionWindow).toBeGreaterThanOrEqual(FLOW_CONTROL_WINDOW)
  })
})
