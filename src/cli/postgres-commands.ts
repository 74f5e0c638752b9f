import type { Command } from 'commander';
import { readStoredSecret, secretFile } from '../accounts/server-secret.js';
import { loadConfig } from '../config.js';
import { copyRows, rowCounts } from '../store/copy-database.js';
import { type Database, databaseExists, databaseLocation, openDatabase } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import { DataFolderBusy, lockOutServers } from '../store/server-lock.js';
import { type OutputOptions, printResult, runCommand } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';

const inWords = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([table, rows]) => `${table} ${rows}`)
    .join(', ');

/** Opens a database for the move; a failure is the environment's (exit 3), in words. */
async function open(settings: { dataDir: string; databaseUrl?: string }, schema: Schema): Promise<Database> {
  try {
    return await openDatabase(settings, schema);
  } catch (error) {
    throw new CliFailure('database', (error as Error).message, EXIT.environment);
  }
}

/** `detectd migrate-to-postgres` (docs/operations.md "Moving from SQLite to PostgreSQL"). */
export function addPostgresCommands(program: Command, schema: Schema): void {
  program
    .command('migrate-to-postgres')
    .description(
      'copy everything in the embedded SQLite database (DETECTD_DATA_DIR) into the empty PostgreSQL database DETECTD_DATABASE_URL; ' +
        'DETECTD_SECRET must be the SQLite server\'s secret (its secret.key); refused while a server runs on the SQLite database',
    )
    .option('--json', 'print one JSON object')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const config = loadConfig();
        if (!config.databaseUrl || !config.secret) {
          throw new CliFailure('configuration', 'set DETECTD_DATABASE_URL (the PostgreSQL database to copy into) and DETECTD_SECRET (the secret in the SQLite data folder\'s secret.key)', EXIT.usage);
        }
        const sqlite = { dataDir: config.dataDir };
        const postgres = { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
        if (!options.json) process.stderr.write(`detectd: from ${databaseLocation(sqlite)} to ${databaseLocation(postgres)}\n`);
        if (!databaseExists(sqlite)) throw new CliFailure('database', `no database at ${databaseLocation(sqlite)}: set DETECTD_DATA_DIR to the server's data folder`, EXIT.environment);
        const stored = readStoredSecret(config.dataDir);
        if (stored !== undefined && stored !== config.secret) {
          throw new CliFailure(
            'secret_mismatch',
            `DETECTD_SECRET is not the secret of the SQLite database (${secretFile(config.dataDir)}), so the copied API keys would not work: set DETECTD_SECRET to that file's contents`,
            EXIT.refused,
          );
        }
        let lock;
        try {
          lock = lockOutServers(config.dataDir);
        } catch (error) {
          if (!(error instanceof DataFolderBusy)) throw error;
          throw new CliFailure('server_running', `${error.message}: writes it answers during the copy would be lost`, EXIT.refused);
        }
        try {
          const from = await open(sqlite, schema);
          try {
            const to = await open(postgres, schema);
            try {
              const there = await rowCounts(to, schema.tables);
              if (Object.values(there).some((rows) => rows > 0)) {
                throw new CliFailure('postgres_not_empty', `${databaseLocation(postgres)} already holds detectd data (${inWords(there)}): migrate-to-postgres copies into an empty database only`, EXIT.refused);
              }
              const copied = await copyRows(from, to, schema.tables);
              const arrived = await rowCounts(to, schema.tables);
              if (inWords(arrived) !== inWords(copied)) throw new Error(`the copy does not hold what was read: read ${inWords(copied)}, found ${inWords(arrived)}`);
              printResult(
                options,
                { from: databaseLocation(sqlite), to: databaseLocation(postgres), rows: copied },
                `copied into ${databaseLocation(postgres)}: ${inWords(copied)}.\n` +
                  'Start the servers with this DETECTD_DATABASE_URL and DETECTD_SECRET; the SQLite database is left as it was.',
              );
            } finally {
              await to.destroy();
            }
          } finally {
            await from.destroy();
          }
        } finally {
          lock.release();
        }
      }),
    );
}
