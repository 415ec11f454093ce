import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface FencedBlock {
  /** repository-relative file, and the line of the opening fence (1-based) */
  file: string
  line: number
  /** the info string's first word (`yaml`), '' when none */
  lang: string
  /** the info string's other words: what the block is (`config-file`, `redis.conf`) */
  tags: string[]
  text: string
}

/** The fenced code blocks (``` or ~~~, CommonMark) of one Markdown text, as printed. */
export function fencedBlocks (file: string, markdown: string): FencedBlock[] {
  const lines = markdown.split('\n')
  const blocks: FencedBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] ?? '')
    if (!open) continue
    const fence = open[1] ?? '```'
    const [lang = '', ...tags] = (open[2] ?? '').trim().split(/\s+/).filter(Boolean)
    let end = i + 1
    while (end < lines.length && !new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(lines[end] ?? '')) end++
    blocks.push({ file, line: i + 1, lang, tags, text: `${lines.slice(i + 1, end).join('\n')}\n` })
    i = end
  }
  return blocks
}

/** The Markdown files whose examples users copy: README.md, docs/*.md and services/*\/README.md. */
export function documentedFiles (root: string): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)
  const services = readdirSync(join(root, 'services'), { withFileTypes: true }).filter((d) => d.isDirectory())
    .map((d) => `services/${d.name}/README.md`)
    .filter((f) => existsSync(join(root, f)))
  return ['README.md', ...docs.sort(), ...services.sort()]
}

export function blocksOf (root: string): FencedBlock[] {
  return documentedFiles(root).flatMap((f) => fencedBlocks(f, readFileSync(join(root, f), 'utf8')))
}
