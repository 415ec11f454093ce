/**
 * Pure rules of the `ancestors` lists kept on tree edges (no driver here, so they are unit-tested).
 * An edge parent → child carries the parent and every ancestor of the parent along every path, so
 * "the descendants of N" is the edges whose list holds N, and "A is above D" is an edge of D whose
 * list holds A.
 */

export interface EdgeRow {
  _id: string
  parent_id: number
  object_id: number
  seq: number
  ancestors: number[]
}

/** Deeper than any real tree; reaching it means the edges form a cycle. */
const MAX_DEPTH = 1024

/** The list of a new edge under `parentId`, given the edges that place the parent. */
export function ancestorsUnder (parentId: number, parentEdges: Pick<EdgeRow, 'ancestors'>[]): number[] {
  return [...new Set([parentId, ...parentEdges.flatMap((e) => e.ancestors)])]
}

/**
 * After an edge into `rootId` was removed: the new lists of the edges below it. `below` = the edges
 * whose list holds `rootId`; `placing` = every edge whose object is `rootId` or an object of `below`
 * (edges from parents outside the subtree are still right and are read as they are). Answers only
 * the edges whose list changes.
 */
export function reroot (below: EdgeRow[], placing: EdgeRow[]): { _id: string, ancestors: number[] }[] {
  const stale = new Set(below.map((e) => e._id))
  const edgesOf = new Map<number, EdgeRow[]>()
  for (const e of placing) edgesOf.set(e.object_id, [...(edgesOf.get(e.object_id) ?? []), e])
  const nodeMemo = new Map<number, number[]>()
  const edgeMemo = new Map<string, number[]>()

  const ofNode = (node: number, depth: number): number[] => {
    const known = nodeMemo.get(node)
    if (known) return known
    if (depth > MAX_DEPTH) throw new Error(`the tree edges above object ${node} form a cycle`)
    const list = [...new Set((edgesOf.get(node) ?? []).flatMap((e) => ofEdge(e, depth + 1)))]
    nodeMemo.set(node, list)
    return list
  }
  const ofEdge = (e: EdgeRow, depth: number): number[] => {
    if (!stale.has(e._id)) return e.ancestors
    let list = edgeMemo.get(e._id)
    if (!list) {
      list = [...new Set([e.parent_id, ...ofNode(e.parent_id, depth)])]
      edgeMemo.set(e._id, list)
    }
    return list
  }

  return below.flatMap((e) => {
    const next = ofEdge(e, 0)
    return sameMembers(next, e.ancestors) ? [] : [{ _id: e._id, ancestors: next }]
  })
}

function sameMembers (a: number[], b: number[]): boolean {
  const set = new Set(a)
  return set.size === new Set(b).size && b.every((x) => set.has(x))
}

/**
 * The root-first chain of first parents above `objectId`. `edges` = the edges of the object and of
 * every ancestor it has, in seq order (the first edge of an object is its first parent).
 */
export function firstParentChain (objectId: number, edges: Pick<EdgeRow, 'parent_id' | 'object_id' | 'seq'>[]): number[] {
  const first = new Map<number, { parent: number, seq: number }>()
  for (const e of edges) {
    const seen = first.get(e.object_id)
    if (!seen || e.seq < seen.seq) first.set(e.object_id, { parent: e.parent_id, seq: e.seq })
  }
  const chain: number[] = []
  const visited = new Set<number>([objectId])
  for (let node = first.get(objectId)?.parent; node !== undefined; node = first.get(node)?.parent) {
    if (visited.has(node) || chain.length >= MAX_DEPTH) break
    visited.add(node)
    chain.push(node)
  }
  return chain.reverse()
}
