import type { RefreshTokenRecord } from './tokens.store.js'

/** A refresh token as the SQL adapters (SQLite, PostgreSQL) keep it: one row of `refresh_tokens`. */
export interface TokenRow {
  hash: string
  user_id: number
  family_id: string
  expires_at: number
  status: 'active' | 'rotated'
  rotated_at: number | null
  successor: string | null
}

export const tokenRecord = (row: TokenRow): RefreshTokenRecord => ({
  hash: row.hash, userId: row.user_id, familyId: row.family_id, expiresAt: row.expires_at,
  status: row.status, rotatedAt: row.rotated_at, successor: row.successor,
})
