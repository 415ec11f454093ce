import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { freePort, freePorts } from '../scripts/launcher/ports.mjs'

const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])

const listen = (port: number) => new Promise<Server>((res, rej) => {
  const server = createServer().once('error', rej)
  server.listen(port, '127.0.0.1', () => res(server))
})

describe('the ports the launcher gives its services', () => {
  it('a port something listens on is not picked: the next random one is', async () => {
    // first in the file, so that no port is yet picked by this process and the draw is passed over by the
    // bind check, not by the picked-before rule: a port below the range that this test listens on, then a
    // random draw that lands on it first
    let held: Server | undefined
    for (let port = 20_000; held === undefined; port++) held = await listen(port).catch(() => undefined)
    const port = (held.address() as { port: number }).port
    const draws = vi.spyOn(Math, 'random').mockImplementationOnce(() => (port - 10_000 + 0.5) / (ephemeralFrom - 10_000))
    try {
      const picked = await freePort()
      expect(picked).not.toBe(port)
      expect(draws.mock.calls.length).toBeGreaterThanOrEqual(2)
    } finally {
      draws.mockRestore()
      await new Promise((r) => held.close(r))
    }
  })

  it('are distinct, below the ephemeral range, and each can be listened on', async () => {
    const ports = await freePorts(50)
    expect(new Set(ports).size).toBe(50)
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(10_000)
    for (const port of ports) expect(port).toBeLessThan(ephemeralFrom)
    const servers = await Promise.all(ports.map(listen))
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  })
})
