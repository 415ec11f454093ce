import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorCodesTable } from '@content/api-schema'
import { describe, expect, it } from 'vitest'
import { ROOT } from './support/system.js'

describe('docs/errors.md', () => {
  it('lists exactly the catalogue of error codes (regenerate with `node scripts/error-codes-doc.mjs`)', () => {
    expect(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')).toContain(errorCodesTable())
  })
})
