// A store of `total` objects: `sections` sections under the publication, the first ("big") holding
// `bigChildren` documents, the rest spread over the others; every tenth document attaches an image.
export function benchFixtures ({ total = 10_000, sections = 10, bigChildren = 1_000 } = {}) {
  const objects = []
  for (let s = 0; s < sections; s++) {
    objects.push({ ref: `s${s}`, object_type: 'section', title: s === 0 ? 'Big section' : `Section ${s}`, nickname: s === 0 ? 'big' : `section-${s}`, parents: ['@publication'] })
  }
  const images = Math.floor((total - sections) / 20)
  for (let i = 0; i < images; i++) {
    objects.push({ ref: `img${i}`, object_type: 'image', title: `Image ${i}`, parents: [`s${1 + (i % (sections - 1))}`] })
  }
  const documents = total - sections - images
  for (let d = 0; d < documents; d++) {
    const parent = d < bigChildren ? 's0' : `s${1 + (d % (sections - 1))}`
    const doc = {
      ref: `d${d}`, object_type: 'document', title: `Document ${d}`, description: `Description of document ${d}`,
      body: `<p>Body of document ${d}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`, parents: [parent],
      tags: [`tag-${d % 50}`], categories: [`cat-${d % 5}`], custom_properties: { n: String(d) },
    }
    if (d % 10 === 0 && images > 0) doc.relations = { attach: [{ related: `img${(d / 10) % images}`, params: { caption: `c${d}` } }] }
    objects.push(doc)
  }
  const categories = Array.from({ length: 5 }, (_, i) => ({ name: `cat-${i}`, label: `Category ${i}` }))
  return { categories, objects }
}
