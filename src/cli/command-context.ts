import { type AccountDomain, accountDomain } from '../accounts/account-domain.js';
import { AccountError } from '../accounts/account-error.js';
import { loadServerSecret } from '../accounts/server-secret.js';
import { type Config, ConfigError, modelSourcesOf } from '../config.js';
import { EMBEDDED_MODEL_NAME } from '../models/embedded-model.js';
import { modelFiles } from '../models/load-models.js';
import { type Database, openDatabase } from '../store/database.js';
import { TASK_TYPES } from '../tasks/index.js';
import { CliFailure, EXIT } from './exit-codes.js';

/** Options every command takes. */
export interface OutputOptions {
  readonly json?: boolean;
}

/** Writes a command's result: `value` as one JSON line with --json, else `text` for a person. */
export function printResult(options: OutputOptions, value: unknown, text: string): void {
  process.stdout.write(options.json ? JSON.stringify(value) + '\n' : text.endsWith('\n') ? text : text + '\n');
}

/** Runs a command body and turns its expected failures into a message and an exit status; anything else is a bug and keeps its stack. */
export async function runCommand(options: OutputOptions, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const failure =
      error instanceof CliFailure
        ? error
        : error instanceof AccountError
          ? new CliFailure(error.code, error.message, EXIT.refused)
          : error instanceof ConfigError
            ? new CliFailure('configuration', error.message, EXIT.environment)
            : undefined;
    if (!failure) throw error;
    process.stderr.write(options.json ? JSON.stringify({ error: { code: failure.code, message: failure.message } }) + '\n' : `detectd: ${failure.message}\n`);
    process.exitCode = failure.status;
  }
}

/** Runs `task` (reading the model settings); its failure becomes a configuration failure (exit 3). */
export async function asConfiguration<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw new CliFailure('configuration', (error as Error).message, EXIT.environment);
  }
}

/** Names of the models this server's settings configure (DETECTD_MODEL, DETECTD_MODELS_DIR), or the embedded one's. */
export async function configuredModelNames(config: Config): Promise<string[]> {
  const files = await asConfiguration(() => modelFiles(modelSourcesOf(config)));
  return files.length > 0 ? files.map((file) => file.name) : [EMBEDDED_MODEL_NAME];
}

/** The store under the account domain, for the commands that reach beyond it (a face service's people). */
export interface Store {
  readonly db: Database;
  readonly secret: string;
}

/**
 * Opens the configured store (SQLite or PostgreSQL, as the server would), runs `task` on the
 * account domain over it, and closes it.
 */
export async function withDomain<T>(config: Config, task: (domain: AccountDomain, store: Store) => Promise<T>, modelNames?: readonly string[]): Promise<T> {
  let db: Database;
  try {
    db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (error) {
    throw new CliFailure('database', `cannot open the database: ${(error as Error).message}`, EXIT.environment);
  }
  try {
    const secret = loadServerSecret(config.secret, config.dataDir);
    return await task(accountDomain(db, secret, { serviceTypes: TASK_TYPES, modelNames, signUp: config.signUp }), { db, secret });
  } finally {
    await db.destroy();
  }
}

/** Rows as aligned text columns under a header, for people; --json gives the same data to scripts. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
