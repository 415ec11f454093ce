/** Refuses bytes that are not UTF-8, and drops a leading byte order mark (an encoding's mark, not text). */
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** The bytes as text, or null when they are not UTF-8 (where Buffer's own decoding would put U+FFFD). */
export function utf8Text (bytes: Uint8Array): string | null {
  try {
    return UTF8.decode(bytes)
  } catch {
    return null
  }
}
