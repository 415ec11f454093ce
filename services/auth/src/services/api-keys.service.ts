import { DomainError } from '@content/platform'
import { unknownGroups } from '../core/accounts.rules.js'
import { newApiKey, parseApiKey, sameHash } from '../security/api-keys.js'
import type { AccountsStore, ApiKeyRecord } from '../store/accounts.store.js'
import type { SessionsService } from './sessions.service.js'

export interface NewKeyInput {
  name: string
  groups: string[]
  /** ms since the epoch; null = never */
  expiresAt: number | null
  userId: number
}

export interface ApiKeysService {
  /** the record and the whole key, which is shown once and never stored */
  create(input: NewKeyInput): Promise<{ record: ApiKeyRecord, key: string }>
  list(): Promise<ApiKeyRecord[]>
  revoke(id: string): Promise<void>
  /** a short-lived access token for a valid key: its owner's id, its own groups */
  exchange(key: string): Promise<{ accessToken: string, expiresIn: number }>
}

const invalid = (details: Record<string, string>) =>
  new DomainError('VALIDATION_FAILED', `invalid fields: ${Object.keys(details).join(', ')}`, details)
/** One answer for a malformed, unknown, revoked or expired key, and for a key whose owner may no longer log in. */
const keyRefused = () => new DomainError('TOKEN_INVALID', 'the API key is invalid, expired or revoked')

export function createApiKeysService (store: AccountsStore, sessions: SessionsService, now: () => number = Date.now): ApiKeysService {
  return {
    async create (input) {
      const name = input.name.trim()
      if (name === '' || name.length > 100) throw invalid({ name: 'is required, at most 100 characters' })
      if (input.expiresAt !== null && input.expiresAt <= now()) throw invalid({ expires_at: 'must be in the future' })
      const missing = unknownGroups(input.groups, new Set((await store.groups.list()).map((g) => g.name)))
      if (missing.length > 0) throw invalid({ groups: `unknown groups: ${missing.join(', ')}` })
      const { id, key, secretHash } = newApiKey()
      const record = await store.apiKeys.create({
        id, name, groups: [...new Set(input.groups)].sort(), userId: input.userId, created: now(), expiresAt: input.expiresAt, secretHash,
      })
      if (record === 'unknown_user') throw new DomainError('USER_NOT_FOUND', 'the key\'s owner does not exist')
      return { record, key }
    },
    list: () => store.apiKeys.list(),
    async revoke (id) {
      if (!await store.apiKeys.remove(id)) throw new DomainError('API_KEY_NOT_FOUND', `no API key ${id}`)
    },
    async exchange (key) {
      const parsed = parseApiKey(key)
      const record = parsed && await store.apiKeys.get(parsed.id)
      if (!parsed || !record || !sameHash(record.secretHash, parsed.secretHash)) throw keyRefused()
      const at = now()
      if (record.expiresAt !== null && record.expiresAt <= at) throw keyRefused()
      const owner = await store.users.get(record.userId)
      if (!owner || owner.disabled) throw keyRefused()
      await store.apiKeys.touch(record.id, at).catch(() => undefined)
      const left = record.expiresAt === null ? Infinity : (record.expiresAt - at) / 1000
      return sessions.accessToken({ id: owner.id, groups: record.groups }, left)
    },
  }
}
