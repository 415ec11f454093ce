import { afterEach, describe, expect, it } from 'vitest'
import { hashPassword } from '../../src/security/passwords.js'
import { captureLogger } from '../helpers/logger.js'
import { rpcError } from '../helpers/rpc.js'
import { startStack, TEST_SECRET, type Stack } from '../helpers/stack.js'

let stack: Stack | undefined
afterEach(async () => { await stack?.stop(); stack = undefined })

describe('logs never carry tokens or passwords', () => {
  it('redacts password and token fields wherever they are logged', () => {
    const { log, lines, text } = captureLogger()
    log.info({ password: 'p4ss', refresh_token: 'rt-value', access_token: 'at-value', token: 't-value' }, 'top level')
    log.info({ request: { password: 'p4ss', refresh_token: 'rt-value', access_token: 'at-value' } }, 'nested')
    for (const secret of ['p4ss', 'rt-value', 'at-value', 't-value']) expect(text()).not.toContain(secret)
    expect(lines()[0]).toMatchObject({ password: '[Redacted]', refresh_token: '[Redacted]', access_token: '[Redacted]' })
    expect(lines()[1]).toMatchObject({ request: { password: '[Redacted]', refresh_token: '[Redacted]' } })
  })

  it('a whole session at trace level leaves no secret in the log', async () => {
    stack = await startStack()
    const s = stack
    const client = s.client
    await client.CreateGroup({ name: 'editor', backend_auth: true })
    await client.CreateUser({ username: 'carol', password: 'carol-secret-pw', groups: ['editor'], name: '', email: '' })
    await s.accounts.users.create({ username: 'dave', passwordHash: await hashPassword('dave-pw'), name: '', email: '', groups: [], cardId: null })
    await rpcError(client.Login({ username: 'carol', password: 'wrong-guess-pw', client_address: '1.2.3.4' }))
    const first = await client.Login({ username: 'carol', password: 'carol-secret-pw', client_address: '1.2.3.4' })
    const second = await client.Refresh({ refresh_token: first.refresh_token })
    s.clock.advance(60_000)
    await rpcError(client.Refresh({ refresh_token: first.refresh_token })) // reuse → logged as a warning
    await rpcError(client.Revoke({ caller: { user_id: 1, groups: [] }, refresh_token: second.refresh_token }))
    await client.ImportAccounts({ groups: [], users: [{ username: 'erin', password: 'erin-import-pw', groups: [], name: '', email: '' }], dry_run: false })
    const text = s.logs.text()
    expect(text).toContain('rotated-out refresh token reused')
    expect(text).toContain('login failed')
    for (const secret of ['carol-secret-pw', 'wrong-guess-pw', 'erin-import-pw', first.refresh_token, second.refresh_token,
      first.access_token, second.access_token, TEST_SECRET]) {
      expect(text).not.toContain(secret)
    }
  })
})
