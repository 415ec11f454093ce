import { existsSync } from 'node:fs'

/** Debian's Chromium, driven by playwright-core (never a browser download). */
export const CHROMIUM = '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM)
// without the background-networking flags Chromium keeps trying hosts this closed network refuses
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']
/** A browser suite's title, saying why it is skipped when Chromium is not installed. */
export const browserSuite = (title: string): string => `${title}${HAS_CHROMIUM ? '' : ` (skipped: ${CHROMIUM} not installed)`}`
