import { compileContract, type Contract } from './contract.js'

/**
 * Every `fetch` a system test makes to a running system is checked against that system's own
 * `/openapi.json` (fetched once per system): an answer the document does not describe fails the request,
 * and with it the test. Other hosts (fakes, webhook receivers) pass unchecked.
 */
const contracts = new Map<string, Promise<Contract>>()
const realFetch = globalThis.fetch
let installed = false

/** The method of a fetch call, whatever form its arguments take. */
function methodOf (input: Parameters<typeof fetch>[0], init?: RequestInit): string {
  return (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
}

async function contractOf (origin: string, basePath: string): Promise<Contract> {
  const res = await realFetch(`${origin}${basePath}/openapi.json`)
  if (!res.ok) throw new Error(`${origin}/openapi.json answered ${res.status}`)
  return compileContract(await res.json() as Record<string, unknown>)
}

async function checked (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const res = await realFetch(input, init)
  const url = new URL(input instanceof Request ? input.url : String(input))
  const contract = contracts.get(url.origin)
  if (!contract) return res
  const type = res.headers.get('content-type')
  const method = methodOf(input, init)
  const json = type?.startsWith('application/json') ?? false
  const body = json && method !== 'HEAD' ? await res.clone().text() : undefined
  const problems = (await contract).check(method, url, res.status, type, body)
  if (method !== 'HEAD' && res.status >= 400 && res.status !== 431 && !json) problems.push(`an error answer of type ${type}, not the JSON error body`)
  if (problems.length > 0) {
    throw new Error(`answer outside the OpenAPI document: ${method} ${url.pathname}${url.search} → ${res.status}\n  ${problems.join('\n  ')}`)
  }
  return res
}

/**
 * Checks every later answer of the system at `base` (scheme://host:port) against its document, served
 * under the system's base path.
 */
export function checkAnswersOf (base: string, basePath = ''): void {
  if (!installed) {
    globalThis.fetch = checked as typeof fetch
    installed = true
  }
  const origin = new URL(base).origin
  if (!contracts.has(origin) || basePath !== '') {
    const contract = contractOf(origin, basePath)
    contract.catch(() => {}) // surfaced by the first checked request
    contracts.set(origin, contract)
  }
}

/** Stops checking the system at `base` (its port may be reused by another system). */
export function forgetAnswersOf (base: string): void {
  contracts.delete(new URL(base).origin)
}
