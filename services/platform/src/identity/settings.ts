import { createAccessTokenVerifier, type JwtAlgorithm } from './access-token.js'
import type { IdentityVerifiers } from './call-identity.js'
import { createServiceTokenVerifier, type ServiceIdentity } from './service-token.js'

export interface IdentityConfig {
  SERVICE_SECRET: string
  JWT_SECRET: string
  JWT_ISSUER: string
  JWT_ALGORITHM: JwtAlgorithm
}

/** A service's own identity for its clients and the checks its server runs, from identityEnv. */
export function serviceIdentity (name: string, config: IdentityConfig): { identity: ServiceIdentity, verifiers: IdentityVerifiers } {
  return {
    identity: { name, secret: config.SERVICE_SECRET },
    verifiers: {
      service: createServiceTokenVerifier(config.SERVICE_SECRET),
      user: createAccessTokenVerifier({ secret: config.JWT_SECRET, issuer: config.JWT_ISSUER, algorithm: config.JWT_ALGORITHM }),
    },
  }
}
