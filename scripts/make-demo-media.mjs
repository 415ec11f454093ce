#!/usr/bin/env node
// Draws the demo publication's media (scripts/demo-media/): three illustrations rendered from SVG with
// sharp, and a one-page PDF. The outputs are committed; run this again only to change them.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'

const out = new URL('./demo-media/', import.meta.url).pathname
mkdirSync(out, { recursive: true })

const cover = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1000" viewBox="0 0 1600 1000">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1d3b6f"/><stop offset="0.55" stop-color="#f08a5d"/><stop offset="1" stop-color="#f9d56e"/></linearGradient>
    <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f4b26b"/><stop offset="1" stop-color="#27476e"/></linearGradient>
    <radialGradient id="sun" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fffbe0"/><stop offset="1" stop-color="#fbd46d" stop-opacity="0"/></radialGradient>
  </defs>
  <rect width="1600" height="1000" fill="url(#sky)"/>
  <circle cx="1100" cy="560" r="260" fill="url(#sun)"/><circle cx="1100" cy="560" r="90" fill="#fff4c2"/>
  <path d="M0 640 L220 420 L360 540 L560 300 L760 560 L900 460 L1120 640 Z" fill="#3b2f5c"/>
  <path d="M500 660 L760 380 L940 560 L1160 340 L1420 600 L1600 480 L1600 660 Z" fill="#4f3d6e"/>
  <path d="M0 660 L340 520 L620 640 L900 560 L1240 650 L1600 580 L1600 700 L0 700 Z" fill="#2a2148"/>
  <rect y="700" width="1600" height="300" fill="url(#lake)"/>
  <g stroke="#fff4c2" stroke-width="6" stroke-linecap="round" opacity="0.7">
    <line x1="1010" y1="760" x2="1190" y2="760"/><line x1="1040" y1="800" x2="1160" y2="800"/><line x1="1070" y1="840" x2="1130" y2="840"/>
  </g>
  <g fill="#1b1533"><path d="M180 1000 L260 760 L340 1000 Z"/><path d="M260 1000 L330 800 L400 1000 Z"/><path d="M1380 1000 L1450 780 L1520 1000 Z"/></g>
</svg>`

const team = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900" viewBox="0 0 1200 900">
  <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e8f1f2"/><stop offset="1" stop-color="#b8d8e0"/></linearGradient></defs>
  <rect width="1200" height="900" fill="url(#bg)"/>
  <circle cx="180" cy="160" r="90" fill="#ffffff" opacity="0.5"/><circle cx="1040" cy="120" r="60" fill="#ffffff" opacity="0.5"/>
  ${[[230, '#e07a5f', '#f2cc8f'], [470, '#3d405b', '#e9c46a'], [730, '#81b29a', '#f4a261'], [970, '#6d597a', '#eab69f']].map(([x, shirt, skin], i) => `
  <g transform="translate(${x} ${i % 2 ? 220 : 260})">
    <path d="M-150 540 C-150 330 150 330 150 540 Z" fill="${shirt}"/>
    <circle cx="0" cy="285" r="105" fill="${skin}"/>
    <path d="M-107 290 C-118 150 118 150 107 290 C96 215 40 200 0 205 C-40 200 -96 215 -107 290 Z" fill="#2f2a3a"/>
    <circle cx="-35" cy="300" r="9" fill="#2f2a3a"/><circle cx="35" cy="300" r="9" fill="#2f2a3a"/>
    <path d="M-32 340 Q0 365 32 340" stroke="#2f2a3a" stroke-width="7" fill="none" stroke-linecap="round"/>
  </g>`).join('')}
</svg>`

const party = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800" viewBox="0 0 1200 800">
  <rect width="1200" height="800" fill="#20163b"/>
  ${Array.from({ length: 90 }, (_, i) => {
    const x = (i * 137) % 1200; const y = (i * 283) % 800; const c = ['#f94144', '#f3722c', '#f9c74f', '#90be6d', '#43aa8b', '#577590'][i % 6]
    return `<rect x="${x}" y="${y}" width="${10 + (i % 4) * 4}" height="${6 + (i % 3) * 4}" fill="${c}" transform="rotate(${(i * 47) % 180} ${x} ${y})"/>`
  }).join('')}
  ${[[320, '#f94144'], [470, '#f9c74f'], [620, '#43aa8b'], [770, '#577590'], [900, '#f3722c']].map(([x, c], i) => `
  <path d="M${x} ${560 - i * 18} Q${x + 20} ${680} ${x - 10} ${800}" stroke="#e0e0f0" stroke-width="3" fill="none"/>
  <ellipse cx="${x}" cy="${470 - i * 18}" rx="70" ry="88" fill="${c}"/>
  <ellipse cx="${x - 22}" cy="${440 - i * 18}" rx="14" ry="24" fill="#ffffff" opacity="0.35"/>`).join('')}
</svg>`

async function jpeg (svg, name) {
  const bytes = await sharp(Buffer.from(svg)).jpeg({ quality: 82, mozjpeg: true }).toBuffer()
  writeFileSync(join(out, name), bytes)
  console.log(`${name}: ${bytes.length} bytes`)
}

/** A one-page PDF 1.4 with one line of Helvetica text; the cross-reference offsets are computed. */
function pdf (lines, name) {
  const text = lines.map((line, i) => `BT /F1 ${i === 0 ? 20 : 12} Tf 72 ${740 - i * 28} Td (${line.replace(/[()\\]/g, '\\$&')}) Tj ET`).join('\n')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let body = '%PDF-1.4\n'
  const offsets = objects.map((object, i) => {
    const at = Buffer.byteLength(body)
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
    return at
  })
  const xref = Buffer.byteLength(body)
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  writeFileSync(join(out, name), body)
  console.log(`${name}: ${Buffer.byteLength(body)} bytes`)
}

await jpeg(cover, 'cover.jpg')
await jpeg(team, 'team.jpg')
await jpeg(party, 'launch.jpg')
pdf(['How to read this publication', 'Sections hold documents, events and images.', 'Every object has a nickname you can use in URLs.'], 'reading-guide.pdf')
