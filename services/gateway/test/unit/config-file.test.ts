import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '@content/platform'
import { describe, expect, it } from 'vitest'
import { loadRoutingConfig, parseRoutingConfig, validateRoutingConfig } from '../../src/routing/config-file.js'
import { compileRoutes } from '../../src/http/route-table.js'
import { endpointListing } from '../../src/routing/listing.js'

const customs = new Set(['echo'])

function problemsOf (fn: () => unknown): string[] {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as ConfigError).problems
  }
  throw new Error('expected a ConfigError')
}

describe('routing config file', () => {
  it('when empty, then every default applies', () => {
    const cfg = validateRoutingConfig({}, customs)
    expect(cfg).toEqual({
      basePath: '',
      blacklist: [],
      pathFilters: {
        GET: ['relations', 'children', 'contents', 'sections', 'descendants', 'siblings'],
        POST: ['relations', 'children'], PUT: ['relations', 'children'], DELETE: ['relations', 'children'],
      },
      objectTypeEndpoints: [],
      writableTypes: ['section', 'b_e_file', 'image', 'short_news', 'event', 'document', 'gallery', 'application', 'audio', 'video', 'link', 'card'],
      customEndpoints: [],
      corsOrigins: '*',
      bodyLimit: 1048576,
      trustProxy: undefined,
    })
  })

  it('when YAML, then it is parsed and a method list replaces only that method', () => {
    const cfg = parseRoutingConfig([
      'basePath: /api/',
      'blacklist: [poster]',
      'pathFilters:',
      '  GET: [children, ancestors]',
      'objectTypeEndpoints: [documents]',
      'writableTypes: [document]',
      'customEndpoints: [echo]',
      'corsOrigins: ["https://a.example"]',
      'bodyLimit: 2048',
      'trustProxy: true',
    ].join('\n'), customs)
    expect(cfg.basePath).toBe('/api')
    expect(cfg.pathFilters.GET).toEqual(['children', 'ancestors'])
    expect(cfg.pathFilters.POST).toEqual(['relations', 'children'])
    expect(cfg).toMatchObject({ blacklist: ['poster'], objectTypeEndpoints: ['documents'], writableTypes: ['document'], customEndpoints: ['echo'], corsOrigins: ['https://a.example'], bodyLimit: 2048, trustProxy: true })
  })

  it('corsOrigins takes \'*\', [\'*\'] (the same: any origin) or a list of origin URLs; \'*\' beside origins is refused', () => {
    expect(validateRoutingConfig({ corsOrigins: '*' }, customs).corsOrigins).toBe('*')
    expect(parseRoutingConfig("corsOrigins: ['*']", customs).corsOrigins).toBe('*')
    expect(validateRoutingConfig({ corsOrigins: ['https://a.example', 'https://b.example'] }, customs).corsOrigins).toEqual(['https://a.example', 'https://b.example'])
    for (const bad of [['*', 'https://a.example'], ['https://a.example', '*'], ['a.example'], 'https://a.example', ['*', '*']]) {
      expect(() => validateRoutingConfig({ corsOrigins: bad }, customs), JSON.stringify(bad)).toThrow(/corsOrigins/)
    }
  })

  it('trustProxy takes true, false, or the proxies\' addresses and CIDR ranges', () => {
    expect(validateRoutingConfig({ trustProxy: ['10.0.0.0/8', 'fd00::/8', '192.0.2.1'] }, customs).trustProxy).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.1'])
    for (const bad of [['10.0.0.0/33'], ['ingress.local'], [], 'yes']) {
      expect(() => validateRoutingConfig({ trustProxy: bad }, customs), JSON.stringify(bad)).toThrow(/trustProxy/)
    }
  })

  it('when JSON, then it is parsed too', () => {
    expect(parseRoutingConfig('{"basePath": "/"}', customs).basePath).toBe('')
  })

  it('when invalid in many ways, then every problem is listed at once', () => {
    const problems = problemsOf(() => validateRoutingConfig({
      basePath: 'api',
      blacklist: ['objects', 'bogus'],
      pathFilters: { GET: ['nope'], POST: ['contents'], PATCH: ['relations'] },
      objectTypeEndpoints: ['documents', 'widgets'],
      writableTypes: ['document', 'spaceship'],
      customEndpoints: ['echo', 'missing'],
      corsOrigins: 'https://x.example',
      bodyLimit: -1,
      surprise: true,
    }, customs))
    const expected = [
      /basePath/, /blacklist: unknown endpoint "bogus"/, /pathFilters.GET: unknown filter "nope"/,
      /pathFilters.POST: filter "contents" has no POST handler/, /PATCH/, /objectTypeEndpoints: unknown object-type endpoint "widgets"/,
      /writableTypes: unknown object type "spaceship"/, /customEndpoints: no module registered for "missing"/,
      /corsOrigins/, /bodyLimit/, /surprise/,
    ]
    for (const re of expected) expect(problems.some((p) => re.test(p)), `${re} in\n${problems.join('\n')}`).toBe(true)
    expect(problems.some((p) => p.includes('"objects"'))).toBe(false)
  })

  it('when a custom endpoint shadows another endpoint, then it is an error', () => {
    const problems = problemsOf(() => validateRoutingConfig({ customEndpoints: ['objects'] }, new Set(['objects'])))
    expect(problems.join('\n')).toMatch(/"objects" is already a default endpoint/)
  })

  it('when endpoints take the names media, thumbnails or files, or the blacklist names media, then every problem is listed', () => {
    const problems = problemsOf(() => validateRoutingConfig({
      customEndpoints: ['media', 'thumbnails', 'files'], blacklist: ['media', 'thumbnails'],
    }, new Set(['media', 'thumbnails', 'files'])))
    const text = problems.join('\n')
    expect(text).toMatch(/customEndpoints: "media" is already reserved for media/)
    expect(text).toMatch(/customEndpoints: "thumbnails" is already reserved for media/)
    expect(text).toMatch(/customEndpoints: "files" is already a default endpoint/)
    expect(text).toMatch(/blacklist: unknown endpoint "media"/)
    expect(text).toMatch(/blacklist: unknown endpoint "thumbnails"/)
    expect(problems).toHaveLength(5)
  })

  it('when endpoints take the names openapi.json or docs, or the blacklist names them, then every problem is listed', () => {
    const problems = problemsOf(() => validateRoutingConfig({
      customEndpoints: ['docs', 'openapi.json'], blacklist: ['docs', 'openapi.json'],
    }, new Set(['docs', 'openapi.json'])))
    const text = problems.join('\n')
    expect(text).toMatch(/customEndpoints: "docs" is already reserved for the API description/)
    expect(text).toMatch(/customEndpoints: "openapi.json" is already reserved for the API description/)
    expect(text).toMatch(/blacklist: unknown endpoint "docs"/)
    expect(text).toMatch(/blacklist: unknown endpoint "openapi.json"/)
    expect(problems).toHaveLength(4)
  })

  it('when files is blacklisted, then that is allowed like any default endpoint', () => {
    expect(validateRoutingConfig({ blacklist: ['files'] }, customs).blacklist).toEqual(['files'])
  })

  it('when the text is not YAML, then it says so', () => {
    expect(problemsOf(() => parseRoutingConfig('a: [1, 2', customs))[0]).toMatch(/not valid YAML/)
  })

  it('when the top level is not a mapping, then it is an error', () => {
    expect(problemsOf(() => parseRoutingConfig('- a\n- b', customs)).length).toBeGreaterThan(0)
  })

  it('when CONFIG_FILE is set, then the file is read; a missing file is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-config-'))
    const file = join(dir, 'routing.yaml')
    writeFileSync(file, 'blacklist: [me]\n')
    expect(loadRoutingConfig(file, customs).blacklist).toEqual(['me'])
    expect(loadRoutingConfig(undefined, customs).blacklist).toEqual([])
    expect(problemsOf(() => loadRoutingConfig(join(dir, 'absent.yaml'), customs))[0]).toMatch(/cannot read/)
  })
})

describe('endpoint listing', () => {
  it('when nothing is configured, then files and the API description are listed and the media paths are not', () => {
    expect(Object.keys(endpointListing(compileRoutes(validateRoutingConfig({}, customs)), 'http://h'))).toEqual(['auth', 'changes', 'docs', 'files', 'me', 'objects', 'openapi.json', 'poster', 'trash'])
  })

  it('when endpoints are blacklisted, added or custom, then the listing is sorted and hides the blacklisted', () => {
    const cfg = validateRoutingConfig({ basePath: '/api', blacklist: ['poster'], objectTypeEndpoints: ['galleries', 'documents'], customEndpoints: ['echo'] }, customs)
    expect(Object.entries(endpointListing(compileRoutes(cfg), 'http://h:1'))).toEqual([
      ['auth', 'http://h:1/api/auth'], ['changes', 'http://h:1/api/changes'], ['docs', 'http://h:1/api/docs'], ['documents', 'http://h:1/api/documents'], ['echo', 'http://h:1/api/echo'],
      ['files', 'http://h:1/api/files'], ['galleries', 'http://h:1/api/galleries'], ['me', 'http://h:1/api/me'],
      ['objects', 'http://h:1/api/objects'], ['openapi.json', 'http://h:1/api/openapi.json'], ['trash', 'http://h:1/api/trash'],
    ])
  })
})
