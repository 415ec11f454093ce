import { DomainError } from '@content/platform'

const MAX_NAME_BYTES = 255

/**
 * Why an upload's file name cannot be kept as the object's `name` (decisions §12), or null. The name
 * ends up in a URL path segment and in Content-Disposition, so separators, `..` and control characters
 * are refused rather than rewritten; "." alone would vanish from the URL.
 */
export function fileNameProblem (name: string): string | null {
  if (name === '') return 'must not be empty'
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return `must be at most ${MAX_NAME_BYTES} UTF-8 bytes`
  if (/[/\\]/.test(name)) return 'must not contain "/" or "\\"'
  if (name.includes('..') || name === '.') return 'must not contain ".." or be "."'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point, names that contain them are refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters'
  if (/\p{Cs}/u.test(name)) return 'must be valid Unicode'
  return null
}

/** Throws INVALID_FILE_NAME (400) naming the problem. */
export function checkFileName (name: string): void {
  const problem = fileNameProblem(name)
  if (problem !== null) throw new DomainError('INVALID_ARGUMENT', 'INVALID_FILE_NAME', `the file name ${problem}`, { file_name: problem })
}
