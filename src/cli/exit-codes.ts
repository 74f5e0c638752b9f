/** Exit statuses of `detectd` (docs/configuration.md "Command line"), so that scripts can tell failures apart. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Refused: the command named something that does not exist or broke a rule (e.g. a taken name, an unknown model, a refused model file). */
  refused: 1,
  /** Usage: an unknown command or option, a missing argument. */
  usage: 2,
  /** The settings are invalid or the database cannot be opened. */
  environment: 3,
} as const;

/** A failure the CLI reports in words (and as `{"error": {code, message}}` with `--json`), then exits with `status`. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
