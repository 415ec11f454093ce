#!/usr/bin/env node
// Build step: regenerate src/gen/openapi.ts, writing only when it changed (so tsc and turbo see no change otherwise).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { TYPES_FILE, openapiTypes } from './openapi-sources.mjs'

const types = await openapiTypes()
let current = ''
try { current = readFileSync(TYPES_FILE, 'utf8') } catch {}
if (current !== types) {
  mkdirSync(new URL('.', TYPES_FILE), { recursive: true })
  writeFileSync(TYPES_FILE, types)
  console.log('src/gen/openapi.ts regenerated')
}
