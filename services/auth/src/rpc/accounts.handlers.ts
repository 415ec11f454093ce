import type { v1 } from '@content/protos'
import type { AccountsService } from '../services/accounts.service.js'
import type { GroupInput, UserInput } from '../core/accounts.rules.js'
import type { GroupRecord, UserRecord } from '../store/accounts.store.js'

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

export function userInput (request: v1.CreateUserRequest__Output): UserInput {
  return {
    username: request.username, password: request.password, groups: request.groups, name: request.name,
    email: request.email, cardId: request.card_id ?? null,
  }
}

const groupInput = (request: v1.Group__Output): GroupInput => ({ name: request.name, backendAuth: request.backend_auth })

/** Administration RPCs: proto ↔ accounts service. */
export function accountsHandlers (accounts: AccountsService) {
  return {
    CreateUser: async (request: v1.CreateUserRequest__Output): Promise<v1.User> =>
      formatUser(await accounts.createUser(userInput(request))),
    CreateGroup: async (request: v1.CreateGroupRequest__Output): Promise<v1.Group> =>
      formatGroup(await accounts.createGroup(groupInput(request))),
    ListGroups: async (): Promise<v1.ListGroupsResponse> =>
      ({ groups: (await accounts.listGroups()).map(formatGroup) }),
    GetUser: async (request: v1.GetUserRequest__Output): Promise<v1.User> =>
      formatUser(await accounts.getUser(request.user_id)),
    ImportAccounts: async (request: v1.ImportAccountsRequest__Output): Promise<v1.ImportAccountsResponse> => {
      const ids = await accounts.importAccounts(
        { groups: request.groups.map(groupInput), users: request.users.map(userInput) }, request.dry_run,
      )
      return { user_ids: Object.fromEntries(ids) }
    },
  }
}
