import { DomainError } from '@content/platform'
import { unknownGroups } from '../core/accounts.rules.js'
import { newApiKey, parseApiKey, sameHash } from '../security/api-keys.js'
import type { ApiKeyRecord } from '../store/api-keys.store.js'
import type { ServiceDeps } from './deps.js'
import { accessToken } from './sessions.service.js'

/** What API keys read: the accounts store (keys, their owners, groups), the token settings, the clock. */
export type ApiKeysDeps = Pick<ServiceDeps, 'accounts' | 'settings' | 'now'>

export interface NewKeyInput {
  name: string
  groups: string[]
  /** ms since the epoch; null = never */
  expiresAt: number | null
  userId: number
}

const invalid = (details: Record<string, string>) =>
  new DomainError('VALIDATION_FAILED', `invalid fields: ${Object.keys(details).join(', ')}`, details)
/** One answer for a malformed, unknown, revoked or expired key, and for a key whose owner may no longer log in. */
const keyRefused = () => new DomainError('TOKEN_INVALID', 'the API key is invalid, expired or revoked')

/** The record and the whole key, which is shown once and never stored. */
export async function createApiKey (deps: ApiKeysDeps, input: NewKeyInput): Promise<{ record: ApiKeyRecord, key: string }> {
  const { accounts, now } = deps
  const name = input.name.trim()
  if (name === '' || name.length > 100) throw invalid({ name: 'is required, at most 100 characters' })
  if (input.expiresAt !== null && input.expiresAt <= now()) throw invalid({ expires_at: 'must be in the future' })
  const missing = unknownGroups(input.groups, new Set((await accounts.groups.list()).map((g) => g.name)))
  if (missing.length > 0) throw invalid({ groups: `unknown groups: ${missing.join(', ')}` })
  const { id, key, secretHash } = newApiKey()
  const record = await accounts.apiKeys.create({
    id, name, groups: [...new Set(input.groups)].sort(), userId: input.userId, created: now(), expiresAt: input.expiresAt, secretHash,
  })
  if (record === 'unknown_user') throw new DomainError('USER_NOT_FOUND', 'the key\'s owner does not exist')
  return { record, key }
}

export function listApiKeys (deps: ApiKeysDeps): Promise<ApiKeyRecord[]> {
  return deps.accounts.apiKeys.list()
}

export async function revokeApiKey (deps: ApiKeysDeps, id: string): Promise<void> {
  if (!await deps.accounts.apiKeys.remove(id)) throw new DomainError('API_KEY_NOT_FOUND', `no API key ${id}`)
}

/** A short-lived access token for a valid key: its owner's id, its own groups. */
export async function exchangeApiKey (deps: ApiKeysDeps, key: string): Promise<{ accessToken: string, expiresIn: number }> {
  const { accounts } = deps
  const parsed = parseApiKey(key)
  const record = parsed && await accounts.apiKeys.get(parsed.id)
  if (!parsed || !record || !sameHash(record.secretHash, parsed.secretHash)) throw keyRefused()
  const at = deps.now()
  if (record.expiresAt !== null && record.expiresAt <= at) throw keyRefused()
  const owner = await accounts.users.get(record.userId)
  if (!owner || owner.disabled) throw keyRefused()
  await accounts.apiKeys.touch(record.id, at).catch(() => undefined)
  const left = record.expiresAt === null ? Infinity : (record.expiresAt - at) / 1000
  return accessToken(deps, { id: owner.id, groups: record.groups }, left)
}
