import { afterEach, describe, expect, it, vi } from 'vitest'

/** Every client `connect` makes, with the settings it was made with. */
const made = vi.hoisted(() => [] as { address: string, settings: { channel?: string, timeoutMs: number, userToken?: string } }[])

vi.mock('@content/platform', async (importOriginal) => ({
  ...await importOriginal<typeof import('@content/platform')>(),
  createClient: (_ctor: unknown, address: string, settings: { channel?: string, timeoutMs: number, userToken?: string }) => {
    made.push({ address, settings })
    return { Login: async () => ({ access_token: 'admin-token' }), close: () => {} }
  },
}))

const { ADMIN_TIMEOUT_MS, connect } = await import('../../src/clients.js')

afterEach(() => { made.splice(0) })

describe('connect: the admin tool\'s clients', () => {
  it('when it connects, then every client is on the channel without keepalive pings, so an import the objects service is busy with is not dropped for a ping it could not answer', async () => {
    const clients = await connect({ objects: 'objects:1', auth: 'auth:1', poster: 'poster:1' }, { serviceSecret: 's', username: 'admin', password: 'pw' })
    expect(made.map((m) => m.address)).toEqual(['auth:1', 'objects:1', 'objects:1', 'auth:1', 'poster:1', 'objects:1'])
    for (const m of made) expect(m.settings).toMatchObject({ channel: 'stream', timeoutMs: ADMIN_TIMEOUT_MS })
    // the login's client is the service's own; the others act for the administrator
    expect(made.slice(1).every((m) => m.settings.userToken === 'admin-token')).toBe(true)
    expect(clients.userToken).toBe('admin-token')
  })
})
