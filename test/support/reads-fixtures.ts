// The publication the read and auth system tests load with `npm run admin -- seed`: nested sections,
// documents under several parents, an event, images, relations with params and priorities, a
// protected document and section, an `off` object, objects outside their window, and three users.

export const USERS = {
  member: { username: 'mia', password: 'mia-secret-pass-1', groups: ['members'], name: 'Mia Member', email: 'mia@example.org' },
  editor: { username: 'ed', password: 'ed-secret-pass-22', groups: ['editor'], name: 'Ed Editor', email: 'ed@example.org' },
  outsider: { username: 'otto', password: 'otto-secret-pass-3', groups: ['outsiders'], name: 'Otto', email: 'otto@example.org' },
}

/** Documents of the archive section, enough to page through; appended in id order. */
export const ARCHIVE_SIZE = 45

function archive () {
  return Array.from({ length: ARCHIVE_SIZE }, (_, i) => ({
    ref: `arch${i + 1}`, object_type: 'document', title: `Archive item ${i + 1}`, nickname: `archive-${i + 1}`,
    body: i % 5 === 0 ? '<p>Contains the NEEDLE word</p>' : '<p>plain</p>', parents: ['archive'],
  }))
}

export function readsFixtures () {
  const objects = [
    { ref: 'news', object_type: 'section', title: 'News', nickname: 'news', description: 'What is new', parents: ['@publication'] },
    { ref: 'about', object_type: 'section', title: 'About', nickname: 'about', parents: ['@publication'] },
    { ref: 'team', object_type: 'section', title: 'Team', nickname: 'team', parents: ['about'] },
    { ref: 'deep', object_type: 'section', title: 'Deep', nickname: 'deep', parents: ['team'] },
    { ref: 'archive', object_type: 'section', title: 'Archive', nickname: 'archive', parents: ['@publication'] },
    { ref: 'private', object_type: 'section', title: 'Private corner', nickname: 'private-corner', parents: ['@publication'],
      permissions: { read: ['members'] } },
    {
      ref: 'welcome', object_type: 'document', title: 'Welcome', nickname: 'welcome', description: 'A first document',
      body: '<p>Hello, reader.</p>', abstract: 'Short', lang: 'en', rights: 'CC', creator: 'Ann', comments: 'on',
      start_date: '2001-01-01T00:00:00Z', publication_date: '2024-05-06T07:08:09+02:00',
      parents: ['news'], tags: ['featured'], categories: ['announcements'],
      custom_properties: { reading_time: '2 min' },
      languages: { it: { title: 'Benvenuti' } },
      relations: {
        attach: [{ related: 'cover', priority: 2, params: { caption: 'Our cover' } }, { related: 'logo', priority: 1 }],
        poster: [{ related: 'cover' }],
        seealso: [{ related: 'howto', params: { why: 'guide' } }, { related: 'members-doc' }, { related: 'off-doc' },
          { related: 'future-doc' }],
      },
    },
    { ref: 'howto', object_type: 'document', title: 'How to read', nickname: 'howto', body: '<p>Browse the NEEDLE sections.</p>',
      parents: ['news', 'about'], categories: ['guides'] },
    { ref: 'launch', object_type: 'event', title: 'Launch party', nickname: 'launch', parents: ['news'],
      date_items: [{ start_date: '2026-12-01T18:00:00+00:00', end_date: '2026-12-01T22:00:00+00:00', days: [5, 2, 2] }],
      geo_tags: [{ title: 'Main hall', address: '1 Example Street', latitude: 45.07, longitude: 7.68 }] },
    { ref: 'members-doc', object_type: 'document', title: 'Members only', nickname: 'members-only', parents: ['about'],
      permissions: { read: ['members'] } },
    { ref: 'inside-private', object_type: 'document', title: 'Inside private', nickname: 'inside-private', parents: ['private'] },
    { ref: 'off-doc', object_type: 'document', title: 'Switched off', nickname: 'switched-off', status: 'off', parents: ['news'] },
    { ref: 'future-doc', object_type: 'document', title: 'Not yet', nickname: 'not-yet', start_date: '2099-01-01T00:00:00Z', parents: ['news'] },
    { ref: 'past-doc', object_type: 'document', title: 'Gone', nickname: 'gone', end_date: '2001-01-01T00:00:00Z', parents: ['news'] },
    { ref: 'deep-doc', object_type: 'document', title: 'Deep document', nickname: 'deep-doc', parents: ['deep'] },
    { ref: 'cover', object_type: 'image', title: 'Cover image', nickname: 'cover', parents: ['news'] },
    { ref: 'logo', object_type: 'image', title: 'Logo', nickname: 'logo' },
    ...archive(),
  ]
  return {
    groups: [{ name: 'members', backend_auth: false }, { name: 'outsiders', backend_auth: false }],
    users: Object.values(USERS),
    categories: [{ name: 'announcements', label: 'Announcements' }, { name: 'guides', label: 'Guides' }],
    tags: [{ name: 'featured', label: 'Featured' }],
    objects,
  }
}
