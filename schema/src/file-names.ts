/** The longest file name kept as a media object's `name`, in UTF-8 bytes (decisions §12). */
export const FILE_NAME_MAX_BYTES = 255

/**
 * Why a file name cannot be kept as a media object's `name` (decisions §12), or null: the one rule of
 * the upload (poster) and of every other way a name is stored (objects: fixtures, registered uploads).
 * The name ends up in a URL path segment and in Content-Disposition, so separators, `..` and control
 * characters are refused rather than rewritten; "." alone would vanish from the URL.
 */
export function fileNameProblem (name: string): string | null {
  if (name === '') return 'must not be empty'
  if (Buffer.byteLength(name, 'utf8') > FILE_NAME_MAX_BYTES) return `must be at most ${FILE_NAME_MAX_BYTES} UTF-8 bytes`
  if (/[/\\]/.test(name)) return 'must not contain "/" or "\\"'
  if (name.includes('..') || name === '.') return 'must not contain ".." or be "."'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point, names that contain them are refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters'
  if (/\p{Cs}/u.test(name)) return 'must be valid Unicode'
  return null
}
