export { seedFile, describeRpcError } from './seed.js'
export { parseFixtures, FixturesError } from './fixtures.js'
export { resolveAddresses, type Addresses } from './addresses.js'
