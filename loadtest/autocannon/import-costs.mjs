#!/usr/bin/env node
// `node --max-semi-space-size=64 loadtest/autocannon/import-costs.mjs`: the objects service's own costs around
// the write of one fixtures file of IMPORT_OBJECTS (100,000) objects shaped as the scale bench loads them,
// in-process, IMPORT_ROUNDS (3) times: planning the file (JSON, zod, the plan), checking the plan, the
// ImportFixtures answer as a map of refs and as ids in file order (encoded and decoded as gRPC does), and what
// handing the planned objects over from a worker thread would cost the service's thread (structured clone,
// chunks of 10,000, and the text the other way): the floor of planning in a worker beside the write.
import { receiveMessageOnPort } from 'node:worker_threads'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadContentProtos } from '@content/protos'
import { firstScaleFile } from './fixtures.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const { checkPlanAgainstStore, planFixtures, planLookups } = await import(join(root, 'services/objects/dist/core/fixtures.plan.js'))
const size = Number(process.env.IMPORT_OBJECTS ?? 100_000)
const rounds = Number(process.env.IMPORT_ROUNDS ?? 3)
const CHUNK = 10_000

const text = firstScaleFile(size)
const { responseSerialize, responseDeserialize } = loadContentProtos().content.v1.ObjectService.service.ImportFixtures
const timed = (fn) => {
  const started = performance.now()
  const value = fn()
  return [performance.now() - started, value]
}
const ms = (n) => `${n.toFixed(0)} ms`

console.log(`one file of ${size} objects, ${(text.length / 1e6).toFixed(1)} MB`)
for (let round = 1; round <= rounds; round++) {
  const [planMs, outcome] = timed(() => planFixtures(text, [], 1))
  if (!outcome.ok) throw new Error(`the file does not plan: ${outcome.errors.slice(0, 3).join('; ')}`)
  const { plan } = outcome
  const [checkMs, errors] = timed(() => {
    const lookups = planLookups(plan)
    return checkPlanAgainstStore(plan, { typeOfId: new Map(lookups.ids.map((id) => [id, 'area'])), takenNicknames: [], knownCategories: lookups.categories })
  })
  if (errors.length > 0) throw new Error(`the plan does not check: ${errors[0]}`)

  const refs = {}
  const ids = []
  plan.objects.forEach((o, i) => {
    if (o.ref === null) return
    refs[o.ref] = 1_000_000 + i
    ids.push(1_000_000 + i)
  })
  const [mapEncodeMs, mapWire] = timed(() => responseSerialize({ refs }))
  const [mapDecodeMs] = timed(() => responseDeserialize(mapWire))
  const [idsEncodeMs, idsWire] = timed(() => responseSerialize({ ref_ids: ids }))
  const [idsDecodeMs] = timed(() => responseDeserialize(idsWire))

  const channel = new MessageChannel()
  let receiveMs = 0
  for (let i = 0; i < plan.objects.length; i += CHUNK) {
    channel.port1.postMessage(plan.objects.slice(i, i + CHUNK))
    receiveMs += timed(() => receiveMessageOnPort(channel.port2))[0]
  }
  channel.port1.postMessage(text)
  const [textMs] = timed(() => receiveMessageOnPort(channel.port2))
  channel.port1.close()

  console.log(`round ${round}: plan ${ms(planMs)}, check ${ms(checkMs)}; ` +
    `answer as a map ${(mapWire.length / 1e6).toFixed(2)} MB, encode ${ms(mapEncodeMs)}, decode ${ms(mapDecodeMs)}; ` +
    `as ids ${(idsWire.length / 1e6).toFixed(2)} MB, encode ${ms(idsEncodeMs)}, decode ${ms(idsDecodeMs)}; ` +
    `planned objects received from a worker ${ms(receiveMs)}, the text ${ms(textMs)}`)
}
