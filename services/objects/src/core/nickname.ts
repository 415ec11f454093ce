/** Longest nickname, generated or explicit. */
export const NICKNAME_MAX = 255

/** Letters that Unicode decomposition does not fold. */
const LIGATURES: Record<string, string> = { æ: 'ae', ø: 'o', œ: 'oe', ß: 'ss', đ: 'd', ł: 'l', þ: 'th', ð: 'd', ı: 'i' }

/**
 * Nickname rules (decisions §4): lower-case, accents folded, runs outside [a-z0-9_-] become one '-',
 * trimmed of '-', an all-digit result gets an 'n' prefix (paths treat digits as ids), cut to NICKNAME_MAX.
 */
export function nicknameBase (title: string | null | undefined): string {
  const folded = (title ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[æøœßđłþðı]/g, (c) => LIGATURES[c] ?? c)
  const dashed = folded.replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '')
  const short = cut(dashed, NICKNAME_MAX)
  return /^\d+$/.test(short) ? cut(`n${short}`, NICKNAME_MAX) : short
}

/** The first `max` characters, without a trailing '-'. */
function cut (text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max).replace(/-+$/, '')
}

/** The `n`-th candidate nickname of `root`: the root itself (0), then `root-1`, `root-2`, … (the root cut to leave room for the suffix). */
export function nicknameCandidate (root: string, n: number): string {
  if (n === 0) return root
  const suffix = `-${n}`
  return `${cut(root, NICKNAME_MAX - suffix.length)}${suffix}`
}

/** First free candidate among `base`, `base-1`, `base-2`, …; an empty base becomes `<type>-<id>`. */
export function uniqueNickname (base: string, fallback: string, isTaken: (candidate: string) => boolean): string {
  const root = base === '' ? fallback : base
  for (let n = 0; ; n++) {
    const candidate = nicknameCandidate(root, n)
    if (!isTaken(candidate)) return candidate
  }
}

/** An explicit nickname must already be in the generated form and must not look like an id. */
export function nicknameProblem (nickname: string): string | null {
  if (nickname === '') return 'must not be empty'
  if (nickname.length > NICKNAME_MAX) return `must be at most ${NICKNAME_MAX} characters`
  if (!/^[a-z0-9_-]+$/.test(nickname)) return 'may contain only a-z, 0-9, "_" and "-"'
  if (/^\d+$/.test(nickname)) return 'must not be all digits'
  return null
}
