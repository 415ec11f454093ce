/** The command line itself is wrong: the tool prints the message, the usage, and exits 2. */
export class UsageError extends Error {}

/** The tool cannot act as an administrator (no service secret, no password): said in one line, exit 2. */
export class CredentialsError extends Error {}
