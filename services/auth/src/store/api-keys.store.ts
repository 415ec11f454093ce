/** A long-lived credential for a machine: acts as its owner with its own groups. */
export interface ApiKeyRecord {
  id: string
  name: string
  groups: string[]
  userId: number
  /** ms since the epoch */
  created: number
  expiresAt: number | null
  lastUsed: number | null
  /** SHA-256 (hex) of the secret part; the key itself is never stored */
  secretHash: string
}

export type NewApiKey = Omit<ApiKeyRecord, 'lastUsed'>

export interface ApiKeysPort {
  /** 'unknown_user' when the owner does not exist */
  create(key: NewApiKey): Promise<ApiKeyRecord | 'unknown_user'>
  get(id: string): Promise<ApiKeyRecord | null>
  /** every key, newest first */
  list(): Promise<ApiKeyRecord[]>
  /** false when there was no such key */
  remove(id: string): Promise<boolean>
  /** records a use; best effort */
  touch(id: string, now: number): Promise<void>
}
