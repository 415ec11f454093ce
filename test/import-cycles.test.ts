import { parseCircular, parseDependencyTree } from 'dpdm'
import { describe, expect, it } from 'vitest'
import { ROOT } from './support/system.js'

/** Every workspace's sources: the services, the API schema, the contracts' loader, the clients. */
const SOURCES = ['services/*/src/**/*.ts', 'schema/src/**/*.ts', 'protos/src/**/*.ts', 'clients/*/src/**/*.ts']

describe('the layers of every workspace', () => {
  it('import each other without a cycle, type-only imports counted (they still tie layers together)', async () => {
    const tree = await parseDependencyTree(SOURCES, { cwd: ROOT, context: ROOT, transform: false, extensions: ['.ts', '.js'] })
    const ours = Object.keys(tree).filter((file) => !file.includes('node_modules'))
    // the check sees the sources, and resolves every relative import (a missed one could hide a cycle)
    expect(ours.length).toBeGreaterThan(300)
    const unresolved = ours.flatMap((file) => (tree[file] ?? []).filter((d) => d.request.startsWith('.') && d.id === null).map((d) => `${file}: ${d.request}`))
    expect(unresolved).toEqual([])
    expect(parseCircular(tree).map((cycle) => cycle.join(' → '))).toEqual([])
  })
})
