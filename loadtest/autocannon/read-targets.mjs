// The URLs the headline read figures spread over, so that no run reads one URL over and over (which
// only the best case does): 1,000 documents, and every page of 20 of every section of the bench store.

/** 1,000 documents of the bench store (fixtures.mjs benchFixtures), every seventh. */
export function spreadIds (refs) {
  return Array.from({ length: 1_000 }, (_, i) => `/objects/${refs[`d${i * 7}`]}`)
}

/** Every page of 20 of every section's children (`sections` refs s0, s1, …), asking each section how many pages it has. */
export async function sectionPages (base, refs, sections = 10) {
  const pages = []
  for (let s = 0; s < sections; s++) {
    const id = refs[`s${s}`]
    const first = await (await fetch(`${base}/objects/${id}/children?page_size=20`)).json()
    for (let p = 1; p <= first.paging.total_pages; p++) pages.push(`/objects/${id}/children?page_size=20&page=${p}`)
  }
  return pages
}

/** An autocannon request that takes `paths` in turn, over all connections: each URL as often as the others. */
export function inTurn (paths) {
  let next = 0
  return { method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }
}
