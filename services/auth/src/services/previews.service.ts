import { previewInvalid, verifyPreview } from '@content/platform'
import { accessToken, type AccessDeps } from './sessions.service.js'

/** The access a preview read runs with lives for that one read: a few seconds, never past the URL's expiry. */
const PREVIEW_ACCESS_SECONDS = 30

/**
 * GET /objects/{id}/preview (decisions §16): a preview URL's token traded for its writer's access as it is
 * now. Refused once the writer is deleted, disabled, or has ended its sessions since the URL was made (a
 * new password); the groups are the ones the preview was asked with (a login's, or an API key's).
 */
export async function exchangePreviewToken (deps: AccessDeps, token: string): Promise<{ accessToken: string, expiresIn: number }> {
  const now = deps.now()
  const claims = verifyPreview(deps.settings.previewKey, token, now)
  const writer = await deps.accounts.users.get(claims.user_id)
  // an id made again after a delete is another writer: it was created after the URL
  if (!writer || writer.disabled || writer.sessionsSince > claims.issued || writer.created > claims.issued) {
    throw previewInvalid('its writer may no longer log in')
  }
  return accessToken(deps, { id: writer.id, groups: claims.groups }, Math.min(PREVIEW_ACCESS_SECONDS, (claims.expires - now) / 1000))
}
