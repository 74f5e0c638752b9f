#!/usr/bin/env node
import fs from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';
import { startupFailureSentence } from './startup-failure.js';
import { turboJpeg } from './vision/turbojpeg.js';

/** Which malloc serves this process (`npm start` preloads jemalloc when installed): seen in its mapped libraries. */
function allocator(): 'jemalloc' | 'system' {
  try {
    return fs.readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc') ? 'jemalloc' : 'system';
  } catch {
    return 'system'; // no /proc: not Linux
  }
}

/** Entry point of `npm start`: serve until SIGTERM/SIGINT, then drain and exit. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`detectd: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  logger.info({ allocator: allocator() }, 'memory allocator');
  // Whether JPEGs take libjpeg-turbo's scaled decode, or (no TurboJPEG 3 library here) libvips.
  const jpeg = turboJpeg();
  logger.info({ jpeg_decoder: jpeg ? `libjpeg-turbo (${jpeg.library})` : 'libvips' }, 'JPEG decoder');
  let server;
  try {
    server = await startServer(config, logger);
  } catch (error) {
    // The operator's to fix, in words: one sentence, no stack trace (at debug level: DETECTD_LOG_LEVEL=debug),
    // in the JSON line for machines and last on standard error, where a person reads it.
    const reason = startupFailureSentence(error, config);
    logger.fatal({ reason, code: (error as { code?: unknown }).code }, 'start-up failed');
    logger.debug({ err: error }, 'start-up failure');
    process.stderr.write(`detectd: cannot start: ${reason}\n`);
    process.exit(1);
  }
  const running = server;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

await main();
