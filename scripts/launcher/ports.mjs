// Ports for servers that bind later (a service the launcher starts, a test's system or redis-server).
// listen(0) picks inside the kernel's ephemeral range (Linux `ip_local_port_range`), where any outgoing
// connection, or any other process's listen(0), can take the port before the server binds it (a service
// failed to start with EADDRINUSE so): these are picked below that range instead, at random, each free
// when picked and never picked twice by one process.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

const LOWEST = 10_000

function ephemeralFrom () {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768
  } catch {
    return 32_768 // not Linux: below the IANA dynamic range (49152) as well
  }
}

const below = ephemeralFrom()
const picked = new Set()

const isFree = (port) => new Promise((res) => {
  const server = createServer()
  server.once('error', () => res(false))
  server.listen(port, '127.0.0.1', () => server.close(() => res(true)))
})

/** A port below the ephemeral range, free on 127.0.0.1 when picked, not picked before by this process. */
export async function freePort () {
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST))
    if (picked.has(port)) continue
    picked.add(port)
    if (await isFree(port)) return port
  }
}

/** `count` distinct free ports. */
export async function freePorts (count) {
  const ports = []
  while (ports.length < count) ports.push(await freePort())
  return ports
}
