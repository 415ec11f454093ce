// Writes the table of error codes in docs/errors.md from the catalogue in @content/api-schema
// (schema/src/error-codes.ts), the one place codes are listed. `--check` only says whether it is current.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorCodesTable } from '@content/api-schema'

const file = join(import.meta.dirname, '..', 'docs', 'errors.md')
const text = readFileSync(file, 'utf8')
const start = text.indexOf('| status | code | when |')
if (start < 0) throw new Error('docs/errors.md has no table of codes')
const end = text.indexOf('\n\n', start)
const updated = text.slice(0, start) + errorCodesTable() + (end < 0 ? '' : text.slice(end + 1))
if (process.argv.includes('--check')) {
  if (updated !== text) {
    console.error('docs/errors.md is out of date: run `node scripts/error-codes-doc.mjs`')
    process.exit(1)
  }
} else {
  writeFileSync(file, updated)
}
