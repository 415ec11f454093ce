/** The command line itself is wrong: the tool prints the message, the usage, and exits 2. */
export class UsageError extends Error {}
