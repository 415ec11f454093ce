import type * as grpc from '@grpc/grpc-js'
import { DomainError, type ErrorReason } from '../errors.js'
import { TokenRejected, type AccessTokenVerifier } from './access-token.js'
import type { ServiceTokenVerifier } from './service-token.js'

/** Metadata keys of the two credentials every call may carry. */
export const SERVICE_TOKEN_HEADER = 'x-service-token'
export const USER_TOKEN_HEADER = 'x-user-token'

export const ADMINISTRATOR_GROUP = 'administrator'

/** The identity sent to backends; user 0 without groups is anonymous. */
export interface Caller { user_id: number, groups: string[], may_write: boolean }

export const ANONYMOUS: Caller = Object.freeze({ user_id: 0, groups: Object.freeze([]) as unknown as string[], may_write: false })

/** Who a call comes from, as verified by the receiving server. */
export interface CallIdentity {
  /** the calling service, from its service token */
  peer: string
  /** the user the call acts for, from the access token it carries; anonymous without one */
  caller: Caller
  /** that access token, for a backend that calls another one on the user's behalf */
  userToken: string | undefined
}

export interface IdentityVerifiers {
  service: ServiceTokenVerifier
  user: AccessTokenVerifier
}

const unauthenticated = (reason: ErrorReason, message: string) => new DomainError(reason, message)

/** One text value of a metadata key; a repeated or binary value is refused rather than guessed at. */
function single (metadata: grpc.Metadata, key: string): string | undefined {
  const values = metadata.get(key)
  if (values.length === 0) return undefined
  if (values.length > 1 || typeof values[0] !== 'string') throw unauthenticated('CREDENTIALS_INVALID', `${key} must be sent once`)
  return values[0]
}

/** Checks a call's credentials; throws UNAUTHENTICATED for a missing or bad service token or a bad user token. */
export async function identify (metadata: grpc.Metadata, verify: IdentityVerifiers): Promise<CallIdentity> {
  const serviceToken = single(metadata, SERVICE_TOKEN_HEADER)
  if (serviceToken === undefined) throw unauthenticated('SERVICE_AUTHENTICATION_REQUIRED', 'calls need a service token')
  const peer = await verify.service(serviceToken)
  if (peer === null) throw unauthenticated('SERVICE_TOKEN_INVALID', 'the service token is invalid')
  const userToken = single(metadata, USER_TOKEN_HEADER)
  return { peer, caller: await callerOfToken(userToken, verify.user), userToken }
}

/**
 * The user an access token names (anonymous without one); throws UNAUTHENTICATED for a bad token. Each
 * read of a coalesced batch is checked with it, as its own call would be.
 */
export async function callerOfToken (userToken: string | undefined, verify: AccessTokenVerifier): Promise<Caller> {
  if (userToken === undefined) return ANONYMOUS
  try {
    const claims = await verify(userToken)
    return { user_id: claims.userId, groups: claims.groups, may_write: claims.mayWrite }
  } catch (err) {
    if (err instanceof TokenRejected) throw unauthenticated(err.reason === 'expired' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID', err.message)
    throw err
  }
}

/** Administration RPCs: an administrator's access token, whichever service relays it. */
export function requireAdministrator (identity: CallIdentity): void {
  if (identity.caller.user_id === 0) throw unauthenticated('AUTHENTICATION_REQUIRED', 'administration needs an administrator\'s credentials')
  if (!identity.caller.groups.includes(ADMINISTRATOR_GROUP)) throw new DomainError('ADMINISTRATOR_REQUIRED', 'administration needs the administrator group')
}

const identities = new WeakMap<object, CallIdentity>()

/** Kept by the server for the handlers of this call. */
export function rememberIdentity (call: object, identity: CallIdentity): void {
  identities.set(call, identity)
}

/** The verified identity of a call the server accepted. */
export function identityOf (call: object): CallIdentity {
  const identity = identities.get(call)
  if (identity === undefined) throw new Error('a call reached its handler without an identity')
  return identity
}
