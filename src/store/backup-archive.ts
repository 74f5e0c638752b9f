import fs from 'node:fs';
import path from 'node:path';
import { create, extract, list } from 'tar';
import { fileSha256 } from '../file-sha256.js';

/**
 * A backup is one gzip-compressed tar file: the manifest below, the database and the server
 * secret, each by name. Any `tar` reads it (`tar -tzvf backup.tar.gz`); `detectd restore` checks
 * it (manifest, sizes and SHA-256 of every file) before it replaces anything.
 */
export const MANIFEST_NAME = 'detectd-backup.json';
const FORMAT = 1;

export interface ArchivedFile {
  /** The name inside the archive. */
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface BackupManifest {
  readonly format: typeof FORMAT;
  /** The detectd version that took it. */
  readonly detectd_version: string;
  /** When the database was copied, ISO 8601. */
  readonly taken_at: string;
  /** The schema migrations applied to the copied database. */
  readonly migrations: readonly string[];
  readonly files: readonly ArchivedFile[];
}

async function describeFile(folder: string, name: string): Promise<ArchivedFile> {
  const file = path.join(folder, name);
  return { name, bytes: fs.statSync(file).size, sha256: await fileSha256(file) };
}

/**
 * Writes the files of `folder` named in `names`, with the manifest first, into the archive `file`:
 * whole or not at all (written beside it, then renamed), readable by its owner only (it holds the
 * secret).
 */
export async function writeArchive(file: string, folder: string, names: readonly string[], manifest: Omit<BackupManifest, 'format' | 'files'>): Promise<BackupManifest> {
  const files = await Promise.all(names.map((name) => describeFile(folder, name)));
  const whole: BackupManifest = { format: FORMAT, ...manifest, files };
  fs.writeFileSync(path.join(folder, MANIFEST_NAME), JSON.stringify(whole, null, 2) + '\n', { mode: 0o600 });
  const partial = `${file}.partial-${process.pid}`;
  try {
    await create({ file: partial, cwd: folder, gzip: true, portable: true, mode: 0o600 }, [MANIFEST_NAME, ...names]);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  return whole;
}

/** Thrown for an archive that is not a whole detectd backup. */
export class ArchiveRefused extends Error {}

/**
 * The manifest of the backup `file`, its files unpacked into `folder` (which must be empty) and
 * checked against it; `ArchiveRefused` when anything is missing, extra, of another size or hash.
 */
export async function readArchive(file: string, folder: string): Promise<BackupManifest> {
  const entries: string[] = [];
  try {
    await list({ file, strict: true, onReadEntry: (entry) => entries.push(entry.path) });
  } catch (error) {
    throw new ArchiveRefused(`${file} is not a detectd backup (a .tar.gz file): ${(error as Error).message}`);
  }
  if (!entries.includes(MANIFEST_NAME)) throw new ArchiveRefused(`${file} is not a detectd backup: it has no ${MANIFEST_NAME}`);
  // Only plain files at the top: nothing a crafted archive could place elsewhere.
  await extract({ file, cwd: folder, strict: true, filter: (name, entry) => !name.includes('/') && 'type' in entry && entry.type === 'File' });
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(folder, MANIFEST_NAME), 'utf8')) as BackupManifest;
  } catch (error) {
    throw new ArchiveRefused(`${file}: its ${MANIFEST_NAME} is not readable JSON: ${(error as Error).message}`);
  }
  if (manifest.format !== FORMAT) throw new ArchiveRefused(`${file} is a backup of format ${String(manifest.format)}; this detectd reads format ${FORMAT}`);
  const unexpected = entries.filter((name) => name !== MANIFEST_NAME && !manifest.files.some((listed) => listed.name === name));
  if (unexpected.length > 0) throw new ArchiveRefused(`${file} holds files its manifest does not list: ${unexpected.join(', ')}`);
  for (const listed of manifest.files) {
    if (listed.name.includes('/') || !fs.existsSync(path.join(folder, listed.name))) throw new ArchiveRefused(`${file} lacks ${listed.name}, which its manifest lists`);
    const unpacked = await describeFile(folder, listed.name);
    if (unpacked.bytes !== listed.bytes || unpacked.sha256 !== listed.sha256) {
      throw new ArchiveRefused(`${file}: ${listed.name} is not the file that was backed up (its size or SHA-256 differs from the manifest's)`);
    }
  }
  return manifest;
}
