import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A real file system of its own, in memory: full at `bytes` (rounded up to whole pages), or read-only. */
export interface Tmpfs {
  readonly path: string;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `bytes` on a new folder (`mount -t tmpfs`: the tests run as root, here and in
 * CI). `readOnly` mounts it read-only.
 */
export function mountTmpfs(bytes: number, { readOnly = false } = {}): Tmpfs {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', [`size=${bytes}`, ...(readOnly ? ['ro'] : [])].join(','), 'tmpfs', folder]);
  return {
    path: folder,
    unmount() {
      execFileSync('umount', [folder]);
      fs.rmdirSync(folder);
    },
  };
}
