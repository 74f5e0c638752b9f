import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readStoredSecret, secretFile } from '../accounts/server-secret.js';
import { type Config, loadConfig } from '../config.js';
import { packageVersion } from '../package-root.js';
import { ArchiveRefused, type BackupManifest, readArchive, writeArchive } from '../store/backup-archive.js';
import { databaseExists, databaseLocation } from '../store/database.js';
import { sqliteFile } from '../store/dialects/sqlite.js';
import type { Schema } from '../store/schema.js';
import { DataFolderBusy, lockOutServers } from '../store/server-lock.js';
import { checkSnapshot, snapshotDatabase, SnapshotRefused, type SnapshotSummary } from '../store/sqlite-snapshot.js';
import { type OutputOptions, printResult, runCommand } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';

/** The names of the database and the secret inside a backup (as in the data folder). */
const DATABASE_NAME = path.basename(sqliteFile('.'));
const SECRET_NAME = path.basename(secretFile('.'));

/** `backup` and `restore` are for the embedded database: PostgreSQL has its own tools. */
function refusePostgres(config: Config, command: string): void {
  if (!config.databaseUrl) return;
  throw new CliFailure(
    'postgresql',
    `this shell's settings name ${databaseLocation({ dataDir: config.dataDir, databaseUrl: config.databaseUrl })}: back it up with pg_dump and restore it with pg_restore ` +
      `(docs/operations.md, "PostgreSQL"), and keep DETECTD_SECRET with it; detectd ${command} is for the embedded SQLite database`,
    EXIT.refused,
  );
}

const counts = (summary: SnapshotSummary) => `${summary.accounts} account${summary.accounts === 1 ? '' : 's'}, ${summary.services} service${summary.services === 1 ? '' : 's'}`;

/**
 * The file system's refusals of a folder a command writes in: no room left (SQLite's SHMSIZE: no
 * room for the index file of a copy it checks), or not this user's to write.
 */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', 'SQLITE_IOERR_SHMSIZE']);
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/** The code of a system or SQLite error, or of the one that caused it (a refused snapshot's). */
const codeOf = (error: unknown): string | undefined => (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
const isNoRoom = (error: unknown) => NO_ROOM.has(codeOf(error) ?? '');

/**
 * The file system refusing `folder`, where `what` was being written, as the operator's to fix
 * (exit 3); any other error as it is. Whatever was written there so far has been removed.
 */
function asFolderFailure(error: unknown, folder: string, what: string): unknown {
  const code = codeOf(error);
  const failedPath = (error as { path?: string }).path;
  if (isNoRoom(error)) {
    return new CliFailure('target_full', `${folder} has no room for ${what} (${code}: its file system is full): free some space or name a folder on another disk; nothing was written`, EXIT.environment);
  }
  // Only a refusal of the folder's own files: the database's are another folder's.
  if (code && NOT_WRITABLE.has(code) && (failedPath === undefined || path.resolve(failedPath).startsWith(path.resolve(folder) + path.sep))) {
    const reason = code === 'EROFS' ? 'its file system is mounted read-only' : 'this user may not write there';
    return new CliFailure('target_not_writable', `cannot write ${what} in ${folder} (${code}: ${reason}): name a folder this user can write; nothing was written`, EXIT.environment);
  }
  return error;
}

/**
 * A folder for the work files of a command, removed whatever happens; beside `near` so that renames stay on one
 * file system. A full or unwritable `near` is a CliFailure that names it.
 */
async function inWorkFolder<T>(near: string, prefix: string, what: string, work: (folder: string) => Promise<T>): Promise<T> {
  let folder: string | undefined;
  const remove = () => folder && fs.rmSync(folder, { recursive: true, force: true });
  try {
    folder = fs.mkdtempSync(path.join(near, prefix));
    const result = await work(folder);
    remove();
    return result;
  } catch (error) {
    remove();
    throw asFolderFailure(error, near, what);
  }
}

/** Moves the data folder's database and secret (whichever are there) into a new folder beside them; its path, or undefined when there was nothing. */
function setAside(dataDir: string, takenAt: Date): string | undefined {
  const database = sqliteFile(dataDir);
  const present = [database, `${database}-wal`, `${database}-shm`, secretFile(dataDir)].filter((file) => fs.existsSync(file));
  if (present.length === 0) return undefined;
  const aside = path.join(dataDir, `replaced-${takenAt.toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(aside, { mode: 0o700 });
  for (const file of present) fs.renameSync(file, path.join(aside, path.basename(file)));
  return aside;
}

/** Run as root (e.g. by sudo), the restored files go to the data folder's owner, who runs the server. */
function giveToFolderOwner(dataDir: string, files: readonly string[]): void {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = fs.statSync(dataDir);
  for (const file of files) fs.chownSync(file, uid, gid);
}

/** `detectd backup FILE` and `detectd restore FILE` (docs/operations.md "Backup and restore"). */
export function addBackupCommands(program: Command, schema: Schema): void {
  program
    .command('backup <file>')
    .description('copy the embedded SQLite database (also while the server runs) and the server secret into one file, FILE (.tar.gz)')
    .option('--json', 'print one JSON object')
    .action((file: string, options: OutputOptions) =>
      runCommand(options, async () => {
        const config = loadConfig();
        refusePostgres(config, 'backup');
        const settings = { dataDir: config.dataDir };
        if (!options.json) process.stderr.write(`detectd: database: ${databaseLocation(settings)}\n`);
        if (!databaseExists(settings)) {
          throw new CliFailure('database', `no database at ${databaseLocation(settings)}: run the command with the server's DETECTD_DATA_DIR, or in its folder`, EXIT.environment);
        }
        const secret = config.secret ?? readStoredSecret(config.dataDir);
        if (!secret) {
          throw new CliFailure('secret_missing', `no server secret: ${secretFile(config.dataDir)} is not there and DETECTD_SECRET is not set; the database's API keys cannot be used without it`, EXIT.environment);
        }
        const target = path.resolve(file);
        if (fs.existsSync(target)) throw new CliFailure('file_exists', `${target} already exists: name a new file`, EXIT.refused);
        if (!fs.existsSync(path.dirname(target))) throw new CliFailure('folder_missing', `the folder ${path.dirname(target)} does not exist`, EXIT.refused);
        const { manifest, summary } = await inWorkFolder(path.dirname(target), '.detectd-backup-', 'the backup', async (folder) => {
          const takenAt = new Date().toISOString();
          const copied = await snapshotDatabase(sqliteFile(config.dataDir), path.join(folder, DATABASE_NAME));
          fs.chmodSync(path.join(folder, DATABASE_NAME), 0o600);
          fs.writeFileSync(path.join(folder, SECRET_NAME), secret + '\n', { mode: 0o600 });
          const written = await writeArchive(target, folder, [DATABASE_NAME, SECRET_NAME], { detectd_version: packageVersion(), taken_at: takenAt, migrations: copied.migrations });
          return { manifest: written, summary: copied };
        });
        const bytes = fs.statSync(target).size;
        printResult(
          options,
          { file: target, bytes, taken_at: manifest.taken_at, detectd_version: manifest.detectd_version, accounts: summary.accounts, services: summary.services, migrations: manifest.migrations },
          `backup written to ${target} (${bytes} bytes): the database as of ${manifest.taken_at} (${counts(summary)}) and the server secret.\n` +
            'It opens every API key of the database: keep it as safe as the secret itself.',
        );
      }),
    );

  program
    .command('restore <file>')
    .description("put a backup made by `detectd backup` in place of the embedded database and secret (refused while a server runs on them; the files it replaces are kept aside)")
    .option('--json', 'print one JSON object')
    .action((file: string, options: OutputOptions) =>
      runCommand(options, async () => {
        const config = loadConfig();
        refusePostgres(config, 'restore');
        const source = path.resolve(file);
        if (!fs.existsSync(source)) throw new CliFailure('file_not_found', `${source} does not exist`, EXIT.refused);
        if (!options.json) process.stderr.write(`detectd: database: ${databaseLocation({ dataDir: config.dataDir })}\n`);
        let lock;
        try {
          lock = lockOutServers(config.dataDir);
        } catch (error) {
          if (!(error instanceof DataFolderBusy)) throw error;
          throw new CliFailure('server_running', `${error.message} (e.g. systemctl stop detectd), restore, then start it again`, EXIT.refused);
        }
        try {
          const restored = await inWorkFolder(config.dataDir, '.restore-', 'the restored database', async (folder) => {
            const { manifest, summary } = await checkedBackup(source, folder, schema);
            const secret = fs.readFileSync(path.join(folder, SECRET_NAME), 'utf8').trim();
            if (config.secret !== undefined && config.secret !== secret) {
              throw new CliFailure(
                'secret_mismatch',
                "DETECTD_SECRET in this shell is not the secret in the backup, so the restored API keys would not work with it: unset it (the server then reads the restored secret.key) or set it to the backup's",
                EXIT.refused,
              );
            }
            const aside = setAside(config.dataDir, new Date());
            const database = sqliteFile(config.dataDir);
            fs.renameSync(path.join(folder, DATABASE_NAME), database);
            fs.renameSync(path.join(folder, SECRET_NAME), secretFile(config.dataDir));
            giveToFolderOwner(config.dataDir, [database, secretFile(config.dataDir)]);
            return { manifest, summary, aside };
          });
          const { manifest, summary, aside } = restored;
          const pending = schema.migrationNames.filter((name) => !summary.migrations.includes(name));
          printResult(
            options,
            { file: source, data_dir: config.dataDir, taken_at: manifest.taken_at, detectd_version: manifest.detectd_version, accounts: summary.accounts, services: summary.services, replaced: aside ?? null, migrations_pending: pending },
            `restored ${source} into ${config.dataDir}: the database as of ${manifest.taken_at} (${counts(summary)}, taken by detectd ${manifest.detectd_version}) and its server secret.\n` +
              (aside ? `The database and secret it replaced are in ${aside}.\n` : '') +
              (pending.length > 0 ? `The server brings its schema up to date when it starts (${pending.length} migration${pending.length === 1 ? '' : 's'} to run).\n` : '') +
              'Start the server.',
          );
        } finally {
          lock.release();
        }
      }),
    );
}

/** The backup unpacked into `folder` and checked whole: its files against the manifest, its database by SQLite, its schema known to this version (`schema`). */
async function checkedBackup(file: string, folder: string, schema: Schema): Promise<{ manifest: BackupManifest; summary: SnapshotSummary }> {
  try {
    const manifest = await readArchive(file, folder);
    for (const name of [DATABASE_NAME, SECRET_NAME]) {
      if (!manifest.files.some((listed) => listed.name === name)) throw new ArchiveRefused(`${file} is not a detectd backup: it has no ${name}`);
    }
    const summary = checkSnapshot(path.join(folder, DATABASE_NAME));
    const unknown = summary.migrations.filter((name) => !schema.migrationNames.includes(name));
    if (unknown.length > 0) {
      throw new CliFailure(
        'backup_too_new',
        `${file} was taken by detectd ${manifest.detectd_version}, whose database has schema changes this version (${packageVersion()}) does not know (${unknown.join(', ')}): restore it with that version or a later one`,
        EXIT.refused,
      );
    }
    return { manifest, summary };
  } catch (error) {
    // A data folder with no room to unpack and check it says nothing of the backup.
    if ((error instanceof ArchiveRefused || error instanceof SnapshotRefused) && !isNoRoom(error)) throw new CliFailure('invalid_backup', error.message, EXIT.refused);
    throw error;
  }
}
