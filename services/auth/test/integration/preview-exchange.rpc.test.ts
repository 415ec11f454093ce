import { decodeJwt } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { previewKey, signPreview } from '@content/platform'
import { TEST_IDENTITY } from '@content/platform/testing'
import { rpcError } from '../helpers/rpc.js'
import { startStack, type Stack } from '../helpers/stack.js'

const key = previewKey(TEST_IDENTITY.SERVICE_SECRET)
const HOUR = 3_600_000

/**
 * Decisions §16: the gateway trades a preview URL's token for its writer's access as it is now. The trade
 * is refused once the writer may no longer log in, so a URL stops reading with the writer's rights.
 */
describe('ExchangePreviewToken', () => {
  let s: Stack
  const user = (username: string, groups: string[]) => ({ username, password: `pw-${username}-long`, groups, name: '', email: '' })
  /** a token as the objects service signs it, made now for `userId` */
  const tokenOf = (userId: number, groups = ['editor'], ttl = HOUR) => {
    const issued = s.clock.now()
    return signPreview(key, { object_id: 5, user_id: userId, groups, issued, expires: issued + ttl })
  }
  const refusal = async (token: string) => (await rpcError(s.client.ExchangePreviewToken({ token }))).reason

  beforeEach(async () => {
    s = await startStack()
    await s.accounts.groups.create({ name: 'administrator', backendAuth: true })
    await s.accounts.groups.create({ name: 'editor', backendAuth: true })
    await s.accounts.groups.create({ name: 'members', backendAuth: false })
  })
  afterEach(async () => { await s.stop() })

  it('answers a short-lived access token of the writer, with the groups the preview was asked with and their write right now', async () => {
    const bob = await s.client.CreateUser(user('bob', ['editor', 'members']))
    const answer = await s.client.ExchangePreviewToken({ token: tokenOf(bob.id, ['members']) })
    expect(answer.expires_in).toBe(30)
    expect(decodeJwt(answer.access_token)).toMatchObject({ id: bob.id, groups: ['members'], backend_auth: false })
    const editor = decodeJwt((await s.client.ExchangePreviewToken({ token: tokenOf(bob.id) })).access_token)
    expect(editor).toMatchObject({ id: bob.id, groups: ['editor'], backend_auth: true })
    // never past the URL's own expiry
    expect((await s.client.ExchangePreviewToken({ token: tokenOf(bob.id, ['editor'], 5_000) })).expires_in).toBeLessThanOrEqual(5)
  })

  it('refuses the token of a disabled writer, also once enabled again, and of a deleted one', async () => {
    await s.client.CreateUser(user('root', ['administrator']))
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    const carl = await s.client.CreateUser(user('carl', ['editor']))
    const ofBob = tokenOf(bob.id)
    const ofCarl = tokenOf(carl.id)
    s.clock.advance(1_000)
    await s.client.SetDisabled({ user_id: bob.id, disabled: true })
    expect(await refusal(ofBob)).toBe('PREVIEW_TOKEN_INVALID')
    await s.client.SetDisabled({ user_id: bob.id, disabled: false })
    expect(await refusal(ofBob)).toBe('PREVIEW_TOKEN_INVALID')
    // a URL the enabled writer makes afterwards reads again
    await s.client.ExchangePreviewToken({ token: tokenOf(bob.id) })
    await s.client.DeleteUser({ user_id: carl.id })
    expect(await refusal(ofCarl)).toBe('PREVIEW_TOKEN_INVALID')
  })

  it('refuses a URL made before the writer\'s new password, and one naming a user made after it', async () => {
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    const ofBob = tokenOf(bob.id)
    s.clock.advance(1_000)
    await s.client.SetPassword({ user_id: bob.id, password: 'a-brand-new-password' })
    expect(await refusal(ofBob)).toBe('PREVIEW_TOKEN_INVALID')
    // made a minute before dora exists (the store dates a user by the wall clock), for the id dora then gets
    const early = signPreview(key, { object_id: 5, user_id: bob.id + 1, groups: ['editor'], issued: Date.now() - 60_000, expires: s.clock.now() + HOUR })
    expect((await s.client.CreateUser(user('dora', ['editor']))).id).toBe(bob.id + 1)
    expect(await refusal(early)).toBe('PREVIEW_TOKEN_INVALID')
  })

  it('refuses tokens it did not sign, expired ones, and unknown writers', async () => {
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    const other = signPreview(previewKey('another-service-secret-of-32-bytes-or-more'), { object_id: 5, user_id: bob.id, groups: ['editor'], issued: s.clock.now(), expires: s.clock.now() + HOUR })
    expect(await refusal(other)).toBe('PREVIEW_TOKEN_INVALID')
    expect(await refusal('not-a-token')).toBe('PREVIEW_TOKEN_INVALID')
    expect(await refusal('')).toBe('PREVIEW_TOKEN_INVALID')
    const soon = tokenOf(bob.id, ['editor'], 1_000)
    s.clock.advance(1_000)
    expect(await refusal(soon)).toBe('PREVIEW_TOKEN_EXPIRED')
    expect(await refusal(tokenOf(424242))).toBe('PREVIEW_TOKEN_INVALID')
  })
})
