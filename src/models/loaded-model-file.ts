import fs from 'node:fs';
import { fileSha256 } from '../file-sha256.js';

/**
 * A model file as it was when the server loaded it: a worker that restarts (onnx-session-pool.ts)
 * opens the file again, and must find the same model there, not whatever the file holds now.
 */
export class LoadedModelFile {
  /** The file's size, time and inode at the last look, and what it was found to be then. */
  #lastLook: { readonly key: string; readonly change: string | undefined } | undefined;

  private constructor(
    readonly path: string,
    readonly sha256: string,
  ) {}

  static async of(file: string): Promise<LoadedModelFile> {
    return new LoadedModelFile(file, await fileSha256(file));
  }

  /**
   * What became of the file, when it no longer holds the model loaded from it (`is not there
   * (deleted or moved)`, …); undefined when it does. Read and hashed again only when its size,
   * modification time or inode changed since the last look.
   */
  async change(): Promise<string | undefined> {
    let stat;
    try {
      stat = await fs.promises.stat(this.path);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'is not there (deleted or moved)' : `cannot be read (${(error as Error).message})`;
    }
    const key = `${stat.size} ${stat.mtimeMs} ${stat.ino}`;
    if (this.#lastLook?.key === key) return this.#lastLook.change;
    const change = await fileSha256(this.path).then(
      (sha256) => (sha256 === this.sha256 ? undefined : 'no longer holds the model loaded from it (its SHA-256 differs): put that file back, or restart the server to serve the new one'),
      (error: Error) => `cannot be read (${error.message})`,
    );
    this.#lastLook = { key, change };
    return change;
  }
}
