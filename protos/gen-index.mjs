// Writes src/gen/index.ts: one flat module re-exporting every generated content.v1 type.
import { readdirSync, writeFileSync } from 'node:fs'

const dir = new URL('./src/gen/content/v1/', import.meta.url)
const lines = readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()
  .map((f) => `export * from './content/v1/${f.replace(/\.ts$/, '.js')}'`)
writeFileSync(new URL('./src/gen/index.ts', import.meta.url), `${lines.join('\n')}\n`)
