import { readFile } from 'node:fs/promises';
import type { AccountDomain } from '../accounts/account-domain.js';
import type { Config } from '../config.js';
import type { Service } from '../core/service.js';
import { CliFailure, EXIT } from './exit-codes.js';
import { localServerUrl } from './served-models.js';

/**
 * Calls the running server at `path` as `service` (its key revealed from the store), for the commands
 * that need the server's models (a photo described or embedded): at `url`, or the server these settings
 * start on this machine. A service without a key, or no server answering, is the command's failure.
 */
export async function callServerAs(domain: AccountDomain, service: Service, config: Config, url: string | undefined, path: string, init: RequestInit): Promise<Response> {
  const apiKey = await domain.keys.reveal(service);
  if (!apiKey) throw new CliFailure('no_key', `${service.name} has no API key to call the server with: detectd service rotate-key ${service.id}`, EXIT.refused);
  const base = (url ?? localServerUrl(config)).replace(/\/+$/, '');
  return fetch(`${base}${path}`, { ...init, headers: { ...init.headers, Authorization: `ApiKey ${apiKey}` } }).catch((error: Error) => {
    throw new CliFailure('no_server', `no detectd server answers at ${base} (${error.cause instanceof Error ? error.cause.message : error.message}): start it (npm start) or give --url`, EXIT.environment);
  });
}

/** The bytes of a photo a command sends; a file it cannot read is a usage failure. */
export async function readPhoto(photo: string): Promise<Buffer> {
  return readFile(photo).catch((error: NodeJS.ErrnoException) => {
    throw new CliFailure('unreadable_photo', `cannot read ${photo}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, EXIT.usage);
  });
}
