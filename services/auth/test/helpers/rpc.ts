import { createClient, toTransportError, type PromiseClient, type RpcServer, type TransportError } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { status } from '@grpc/grpc-js'
import { actingAsRequested, testIdentity } from '@content/platform/testing'
import { AUTH_ADMINISTRATION } from '../../src/server.js'

export type AuthClient = PromiseClient<v1.AuthServiceDefinition, unknown>

/**
 * A client as the gateway has one: calls act for the request's `caller`; administration calls, and
 * GetUser, act for an administrator unless the call options carry another user's token.
 */
export const gatewayClient = (address: string, timeoutMs = 5_000): AuthClient => actingAsRequested(
  createClient<v1.AuthServiceDefinition>(loadContentProtos().content.v1.AuthService, address, { timeoutMs, identity: testIdentity('gateway').identity }),
  [...AUTH_ADMINISTRATION, 'GetUser'])

/** Listens on a free loopback port and connects a client with a deadline. */
export async function listenAndConnect (server: RpcServer, timeoutMs = 5_000): Promise<{ client: AuthClient, address: string, stop: () => Promise<void> }> {
  const port = await server.listen('127.0.0.1', 0)
  const address = `127.0.0.1:${port}`
  const client = gatewayClient(address, timeoutMs)
  return { client, address, stop: async () => { client.close(); await server.shutdown(2_000) } }
}

/** The error a call failed with, as the gateway sees it (status + reason from trailing metadata). */
export async function rpcError (call: Promise<unknown>): Promise<TransportError & { status: string }> {
  try {
    await call
  } catch (err) {
    const transport = toTransportError(err)
    return { ...transport, status: status[transport.grpcStatus] ?? String(transport.grpcStatus) }
  }
  throw new Error('expected the call to fail')
}
