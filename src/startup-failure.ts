import type { Config } from './config.js';

/** The fields of a Node.js system error that say what failed where. */
interface SystemError extends Error {
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;
}

/**
 * Why the server could not start, as one sentence for the person reading the terminal or the
 * journal: what failed and which setting changes it. The failures that come from the machine (a
 * port taken, a folder not writable) are put in words here; every other one (a model refused, a
 * database unreachable) already says what and where in its message.
 */
export function startupFailureSentence(error: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir'>): string {
  const failure = error as SystemError;
  const where = `port ${config.port} on ${config.host}`;
  if (failure.syscall === 'listen' && failure.code === 'EADDRINUSE') return `${where} is already in use by another program: stop it, or set PORT to a free port`;
  if (failure.syscall === 'listen' && failure.code === 'EACCES') return `this user may not listen on ${where} (ports below 1024 need privileges): set PORT to 1024 or above`;
  if (failure.syscall === 'listen' && failure.code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all`;
  if (failure.path && ['EACCES', 'EPERM', 'EROFS'].includes(failure.code ?? '')) {
    return `this user may not write ${failure.path} (${failure.code}): DETECTD_DATA_DIR (${config.dataDir}) must be a folder the user running detectd can write`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0];
}
