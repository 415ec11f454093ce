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

/**
 * The word `filter[query]` looks for in the scale store: in the titles of RARE_MATCHES documents spread
 * over the store, whatever its size, so that a search answers the same page at every scale.
 */
export const RARE_WORD = 'zephyr'
/** A second such word, in as many other titles: (q4) ORs the two, so it too answers the same page at every scale. */
export const OTHER_RARE_WORD = 'quokka'
const RARE_MATCHES = 20

/**
 * A store shaped like real content, for BENCH_ONLY=scale, as objects in file order (every ref names an
 * earlier object, so the file can be loaded in chunks): a section `big` with min(10,000, half the
 * documents) documents, in whole pages of 20; ten top-level sections, each over a share of total / 2,000
 * subsections that hold the other documents; one object in five an image. Every document attaches the image before it (every third one a
 * second image too) and takes it as its poster, and every other one lists the previous document under
 * `seealso`; tags, categories and a custom property as in benchFixtures, and a publication date a minute
 * after the document before.
 */
export function * scaleObjects ({ total = 10_000 } = {}) {
  const tops = 10
  const subs = Math.max(tops, Math.round(total / 2_000))
  const rest = total - 1 - tops - subs
  const images = Math.floor(rest / 5)
  const documents = rest - images
  // whole pages of 20, so that the last page holds as many objects as the first at every size
  const bigChildren = Math.min(10_000, Math.floor(documents / 2 / 20) * 20)
  const rareEvery = Math.max(1, Math.floor(documents / RARE_MATCHES))
  yield { ref: 'big', object_type: 'section', title: 'Big section', nickname: 'big', parents: ['@publication'] }
  for (let t = 0; t < tops; t++) yield { ref: `t${t}`, object_type: 'section', title: `Section ${t}`, nickname: `section-${t}`, parents: ['@publication'] }
  for (let u = 0; u < subs; u++) yield { ref: `u${u}`, object_type: 'section', title: `Subsection ${u}`, parents: [`t${u % tops}`] }
  let image = -1
  for (let d = 0, i = 0; d < documents; d++) {
    // an image before every fourth document, so that one in five objects is an image
    if (d % 4 === 0 && i < images) {
      image = i++
      yield { ref: `img${image}`, object_type: 'image', title: `Image ${image}`, parents: [`u${image % subs}`] }
    }
    const rareSlot = d / rareEvery < RARE_MATCHES
    const rare = d % rareEvery === 0 && rareSlot ? ` ${RARE_WORD}` : d % rareEvery === Math.floor(rareEvery / 2) && rareSlot && rareEvery > 1 ? ` ${OTHER_RARE_WORD}` : ''
    const doc = {
      ref: `d${d}`, object_type: 'document', title: `Document ${d}${rare}`, description: `Description of document ${d}`,
      body: `<p>Body of document ${d}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
      parents: [d < bigChildren ? 'big' : `u${d % subs}`],
      tags: [`tag-${d % 200}`], categories: [`cat-${d % 5}`], custom_properties: { n: String(d) },
      // a minute apart from 2020-01-01: a day holds 1,440 documents whatever the store's size
      publication_date: new Date(Date.UTC(2020, 0, 1) + d * 60_000).toISOString(),
      relations: {},
    }
    if (image >= 0) doc.relations.poster = [{ related: `img${image}` }]
    if (image >= 0) doc.relations.attach = [{ related: `img${image}`, params: { caption: `c${d}` } }, ...(d % 3 === 0 && image > 0 ? [{ related: `img${image - 1}` }] : [])]
    if (d % 2 === 1) doc.relations.seealso = [{ related: `d${d - 1}` }]
    yield doc
  }
}

/** The categories both stores use. */
export const benchCategories = () => Array.from({ length: 5 }, (_, i) => ({ name: `cat-${i}`, label: `Category ${i}` }))

/** The text of the first fixtures file of `size` objects of a scale load three times as large: its refs name objects of the same file. */
export function firstScaleFile (size) {
  const objects = []
  for (const o of scaleObjects({ total: 3 * size })) {
    objects.push(o)
    if (objects.length === size) break
  }
  return JSON.stringify({ categories: benchCategories(), objects })
}
