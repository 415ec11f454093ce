/** A group of users; members of a `backendAuth` group may write. */
export interface GroupRecord {
  name: string
  backendAuth: boolean
}

/** Groups, by unique name. */
export interface GroupsPort {
  create(group: GroupRecord): Promise<GroupRecord | 'taken'>
  /** Every group, sorted by name. */
  list(): Promise<GroupRecord[]>
}
