// The cost of routing one URL: this gateway's route table (split, decode, resolve) against find-my-way,
// fastify's own router, holding the same routes. Alternating rounds, ns per URL.
//   npx turbo run build --filter=@content/gateway && node services/gateway/bench/routing.bench.mjs
// find-my-way answers a route or nothing; the route table also answers the 400/404/405 of decisions §2
// (see docs/architecture.md, "Routing").
import FindMyWay from 'find-my-way'
import { compileRoutes } from '../dist/http/route-table.js'
import { validateRoutingConfig } from '../dist/routing/config-file.js'
import { pathSegments, resolve } from '../dist/routing/resolve.js'

const table = compileRoutes(validateRoutingConfig({ objectTypeEndpoints: ['documents', 'sections'] }, new Set()))
const fmw = FindMyWay({ ignoreTrailingSlash: true })
for (const r of table.routes) {
  const path = (r.spec.name === 'media.thumbnail' ? '/thumbnails/*' : r.path).replace(/\{(\w+)\}/g, ':$1')
  fmw.on(r.method, path, () => r)
}
const URLS = [
  ['GET', '/objects/5'], ['GET', '/objects/welcome/children'], ['GET', '/documents/9/relations/attach'], ['POST', '/objects'],
  ['GET', '/thumbnails/abc/130x85.jpg'], ['GET', '/objects/5/bogus'], ['GET', '/'], ['PUT', '/objects/5/relations/seealso/7'],
]
const ROUTERS = {
  'route table': (method, url) => resolve(table, method, pathSegments(url)),
  'find-my-way': (method, url) => fmw.find(method, url),
}
const N = Number(process.env.ROUTING_CALLS ?? 2_000_000)
for (let round = 1; round <= 3; round++) {
  for (const [name, route] of Object.entries(ROUTERS)) {
    let found = 0
    const started = process.hrtime.bigint()
    for (let i = 0; i < N; i++) {
      const [method, url] = URLS[i % URLS.length]
      if (route(method, url)) found++
    }
    const ns = Number(process.hrtime.bigint() - started) / N
    console.log(`round ${round} ${name.padEnd(11)} ${ns.toFixed(0).padStart(5)} ns per URL (${found} of ${N} answered)`)
  }
}
