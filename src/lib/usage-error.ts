/** A command line the CLI cannot act on: it prints the message and exits with status 2. */
export class UsageError extends Error {}
