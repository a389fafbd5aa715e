/** A mistake in how the command was called (exit 2): one `engram: …` line saying what to do. */
export class UsageError extends Error {}

/** The command was called right but cannot do its work (exit 1): a missing store, folder or file. */
export class CliFailure extends Error {}
