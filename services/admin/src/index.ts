export { seedFile } from './seed.js'
export { describeRpcError } from './rpc-errors.js'
export { parseFixtures, FixturesError } from './fixtures.js'
export { resolveAddresses, type Addresses } from './addresses.js'
