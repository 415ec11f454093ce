import { createHash } from 'node:crypto'

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0)

/** A content key as the poster service makes them: the SHA-256 hex of the bytes. */
export const keyOf = (bytes: string): string => createHash('sha256').update(bytes).digest('hex')

/** The file of `img1`, as the admin tool hands it over after the poster service stored it. */
export const PIC_FILE = { key: keyOf('pic'), name: 'pic.jpg', mime_type: 'image/jpeg', size: 1234, width: 640, height: 480 }
const DAY = 86_400_000

/** A small site: two sections under the publication, a sub-section, contents, media, protections. */
export const SITE = {
  groups: [{ name: 'members' }],
  categories: [{ name: 'c1', label: 'Category one' }],
  tags: [{ name: 't1', label: 'Tag one' }],
  objects: [
    { ref: 'news', object_type: 'section', title: 'News', parents: ['@publication'] },
    { ref: 'about', object_type: 'section', title: 'About', parents: ['@publication'] },
    { ref: 'sub', object_type: 'section', title: 'Sub', parents: ['news'] },
    {
      ref: 'doc1', object_type: 'document', title: 'Hello', nickname: 'hello', description: 'First', body: '<p>Body one</p>',
      parents: ['news'], tags: ['t1', 'fresh'], categories: ['c1'], custom_properties: { color: 'red', size: 3 },
      languages: { it: { title: 'Ciao' } }, publication_date: '2025-01-01T10:00:00+0100',
      geo_tags: [{ title: 'Office', address: 'Main St 1', latitude: 45.5, longitude: 9.2 }],
      relations: { attach: [{ related: 'img1', priority: 1, params: { label: 'x' } }, { related: 'privimg' }], seealso: [{ related: 'doc2' }] },
    },
    { ref: 'doc2', object_type: 'document', title: 'Second doc', body: 'A searchable BODY', parents: ['news'] },
    { ref: 'secret', object_type: 'document', title: 'Secret', parents: ['news'], permissions: { read: ['members'], write: ['editor'] } },
    { ref: 'draftdoc', object_type: 'document', title: 'Draft', status: 'draft', parents: ['news'] },
    { ref: 'future', object_type: 'document', title: 'Future', start_date: new Date(NOW + DAY).toISOString(), parents: ['news'] },
    {
      ref: 'event1', object_type: 'event', title: 'Party', parents: ['news', 'about'],
      date_items: [{ start_date: '2025-02-01T20:00:00Z', end_date: '2025-02-01T23:00:00+00:00', days: [3, 1, 3] }],
    },
    { ref: 'img1', object_type: 'image', title: 'Picture', file: PIC_FILE },
    { ref: 'img2', object_type: 'image', title: 'Deep picture', parents: ['sub'] },
    { ref: 'privimg', object_type: 'image', title: 'Private picture', permissions: { read: ['members'] } },
  ],
}
