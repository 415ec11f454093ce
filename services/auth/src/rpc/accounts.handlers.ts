import { ADMINISTRATOR_GROUP, DomainError, identityOf } from '@content/platform'
import type { v1 } from '@content/protos'
import {
  createGroup, createUser, deleteUser, exportAccounts, getUser, importAccounts, listGroups, listUsers, setDisabled, setPassword,
} from '../services/accounts.service.js'
import { createApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.service.js'
import type { ServiceDeps } from '../services/deps.js'
import type { GroupInput, UserInput } from '../core/accounts.rules.js'
import type { ApiKeyRecord } from '../store/api-keys.store.js'
import type { GroupRecord } from '../store/groups.store.js'
import type { UserRecord } from '../store/users.store.js'

/** Explicit formatter: never spread a record (it holds the password hash) into a message. */
export function formatUser (user: UserRecord): v1.User {
  const message: v1.User = {
    id: user.id, username: user.username, name: user.name, email: user.email, groups: user.groups,
    created: user.created, disabled: user.disabled,
  }
  if (user.cardId !== null) message.card_id = user.cardId
  return message
}

const formatGroup = (group: GroupRecord): v1.Group => ({ name: group.name, backend_auth: group.backendAuth })

/** Explicit too: never the secret's hash. */
const formatKey = (key: ApiKeyRecord): v1.ApiKey => ({
  id: key.id, name: key.name, groups: key.groups, user_id: key.userId, created: key.created,
  expires_at: key.expiresAt ?? 0, last_used: key.lastUsed ?? 0,
})

export function userInput (request: v1.CreateUserRequest__Output): UserInput {
  return {
    username: request.username, password: request.password, groups: request.groups, name: request.name,
    email: request.email, cardId: request.card_id ?? null,
  }
}

/** An import also takes a kept hash and the disabled flag (an admin export moved between systems). */
const importedUser = (request: v1.CreateUserRequest__Output): UserInput =>
  ({ ...userInput(request), passwordHash: request.password_hash, disabled: request.disabled })

const groupInput = (request: v1.Group__Output): GroupInput => ({ name: request.name, backendAuth: request.backend_auth })

/** Administration RPCs (and GetUser): proto ↔ accounts and API keys. */
export function accountsHandlers (deps: ServiceDeps) {
  return {
    ListUsers: async (): Promise<v1.ListUsersResponse> => ({ users: (await listUsers(deps)).map(formatUser) }),
    ExportAccounts: async (): Promise<v1.ExportAccountsResponse> => {
      const { groups, users } = await exportAccounts(deps)
      return { groups: groups.map(formatGroup), users: users.map((u) => ({ user: formatUser(u), password_hash: u.passwordHash })) }
    },
    SetPassword: async (request: v1.SetPasswordRequest__Output): Promise<v1.Empty> => {
      await setPassword(deps, Number(request.user_id), request.password)
      return {}
    },
    SetDisabled: async (request: v1.SetDisabledRequest__Output): Promise<v1.User> =>
      formatUser(await setDisabled(deps, Number(request.user_id), request.disabled)),
    DeleteUser: async (request: v1.UserRef__Output): Promise<v1.Empty> => {
      await deleteUser(deps, Number(request.user_id))
      return {}
    },
    CreateApiKey: async (request: v1.CreateApiKeyRequest__Output, call: object): Promise<v1.CreatedApiKey> => {
      const owner = Number(request.user_id) || Number(identityOf(call).caller.user_id)
      const expiresAt = Number(request.expires_at)
      const { record, key } = await createApiKey(deps, { name: request.name, groups: request.groups, expiresAt: expiresAt > 0 ? expiresAt : null, userId: owner })
      return { key: formatKey(record), secret: key }
    },
    ListApiKeys: async (): Promise<v1.ListApiKeysResponse> => ({ keys: (await listApiKeys(deps)).map(formatKey) }),
    RevokeApiKey: async (request: v1.ApiKeyRef__Output): Promise<v1.Empty> => {
      await revokeApiKey(deps, request.id)
      return {}
    },
    CreateUser: async (request: v1.CreateUserRequest__Output): Promise<v1.User> =>
      formatUser(await createUser(deps, userInput(request))),
    CreateGroup: async (request: v1.CreateGroupRequest__Output): Promise<v1.Group> =>
      formatGroup(await createGroup(deps, groupInput(request))),
    ListGroups: async (): Promise<v1.ListGroupsResponse> =>
      ({ groups: (await listGroups(deps)).map(formatGroup) }),
    GetUser: async (request: v1.GetUserRequest__Output, call: object): Promise<v1.User> => {
      const { caller } = identityOf(call)
      if (Number(caller.user_id) !== Number(request.user_id) && !caller.groups.includes(ADMINISTRATOR_GROUP)) {
        throw new DomainError('PERMISSION_DENIED', 'a user may read only its own account')
      }
      return formatUser(await getUser(deps, request.user_id))
    },
    ImportAccounts: async (request: v1.ImportAccountsRequest__Output): Promise<v1.ImportAccountsResponse> => {
      const ids = await importAccounts(
        deps, { groups: request.groups.map(groupInput), users: request.users.map(importedUser) }, request.dry_run,
      )
      return { user_ids: Object.fromEntries(ids) }
    },
  }
}
