/** A login's tokens as the client keeps them. */
export interface Tokens {
  accessToken: string
  refreshToken: string
  /** when the access token expires (ms since the epoch), from `expires_in` */
  expiresAt: number
}

/**
 * Where the client keeps its tokens. The default holds them in memory; a browser app may keep them in
 * sessionStorage, a CLI in a file. Each method may be async.
 */
export interface TokenStorage {
  load (): Tokens | null | Promise<Tokens | null>
  save (tokens: Tokens | null): void | Promise<void>
}

/** Tokens in this process's memory only: lost on exit, never written anywhere. */
export function memoryStorage (initial: Tokens | null = null): TokenStorage {
  let tokens = initial
  return {
    load: () => tokens,
    save: (next) => { tokens = next },
  }
}
