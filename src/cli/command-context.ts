import { type AccountDomain, accountDomain } from '../accounts/account-domain.js';
import { AccountError } from '../accounts/account-error.js';
import { loadServerSecret, ServerSecretUnreadable } from '../accounts/server-secret.js';
import { type Config, ConfigError } from '../config.js';
import type { Service } from '../core/service.js';
import type { RoleModel } from '../models/role-models.js';
import { type Database, databaseExists, databaseLocation, openDatabase } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import type { TaskTable } from '../tasks/task-table.js';
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
            : error instanceof ServerSecretUnreadable
              ? new CliFailure('secret_unreadable', error.message, EXIT.environment)
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

/**
 * The model loader (load-models.ts, with every runtime and family behind it), imported by the commands
 * that load models when they run: every `detectd` command loads the modules that name it.
 */
export const loadModelCode = () => import('../models/load-models.js');

/** A model a server serves, as a service's `--model` is checked against it: its name and what it finds. */
export type ServedModel = Pick<RoleModel, 'name' | 'role' | 'kind'>;

/** How a command uses the store. */
export interface DomainUse {
  /**
   * The command may make the database (`account create`, the first thing done on a new server).
   * Every other command works on accounts that must exist already: a missing SQLite file is
   * refused instead of created empty (the CLI was run away from the server's data, most likely).
   */
  readonly mayCreate?: boolean;
  /** The models a service may name (served-models.ts); absent: not checked. */
  readonly models?: readonly ServedModel[];
}

/** The store under the account domain, for the commands that reach beyond it (a feature's tables). */
export interface Store {
  readonly db: Database;
  readonly secret: string;
}

/** Runs a command's `task` on the account domain and its store: see withDomainServing. */
export type WithDomain = <T>(config: Config, output: OutputOptions, task: (domain: AccountDomain, store: Store) => Promise<T>, use?: DomainUse) => Promise<T>;

/** What a feature says of a service of its own in `detectd service show`: fields of its JSON object, and lines of its text (a label padded to 10 columns, then the value). */
export interface ServiceFacts {
  readonly json: Readonly<Record<string, unknown>>;
  readonly lines: readonly string[];
}

/** Reads what a feature says of `service` in `detectd service show` (Feature.serviceFacts); undefined: nothing (a service of another feature). */
export type ServiceFactsReader = (service: Service, store: Store) => Promise<ServiceFacts | undefined>;

/**
 * What the CLI serves, built once in cli.ts (its composition root) from the features, as the server
 * builds its own: the task table, its database's schema, and what the features say of their services.
 */
export interface Served {
  readonly tasks: TaskTable;
  readonly schema: Schema;
  readonly serviceFacts: readonly ServiceFactsReader[];
}

/**
 * A CLI serving `served`: the returned function opens the configured store (SQLite or PostgreSQL,
 * as the server would), runs `task` on the account domain over it (a service may be of the
 * table's types), and closes it. Which database it is goes to standard error first (not
 * with --json, whose standard error is one JSON object), since the CLI finds it from its own
 * settings and folder, which may not be the server's.
 */
export function withDomainServing({ tasks, schema }: Served): WithDomain {
  return async (config, output, task, use = {}) => {
    const settings = { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
    if (!output.json) process.stderr.write(`detectd: database: ${databaseLocation(settings)}\n`);
    if (!use.mayCreate && !databaseExists(settings)) {
      throw new CliFailure(
        'database',
        `no database at ${databaseLocation(settings)}: the server makes it on its first start in DETECTD_DATA_DIR (here ${config.dataDir}), and so does \`detectd account create\`; ` +
          'run the command with the server\'s settings (DETECTD_DATA_DIR, or DETECTD_DATABASE_URL) or in its folder',
        EXIT.environment,
      );
    }
    let db: Database;
    try {
      db = await openDatabase(settings, schema);
    } catch (error) {
      throw new CliFailure('database', (error as Error).message, EXIT.environment);
    }
    try {
      const secret = loadServerSecret(config.secret, config.dataDir);
      const { models } = use;
      const modelChecks = models && { modelNames: models.map((model) => model.name), modelsOfType: (type: string) => tasks.modelsFor(type, models) };
      return await task(accountDomain(db, secret, { serviceTypes: tasks.types, ...modelChecks, signUp: config.signUp }), { db, secret });
    } finally {
      await db.destroy();
    }
  };
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
