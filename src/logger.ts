import { pino, type Logger } from 'pino';

/** JSON lines on stdout. Authorization headers and secrets never reach a log call; redaction is a second guard. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'detectd' },
    redact: { paths: ['*.authorization', '*.apiKey', '*.api_key', '*.password', '*.raw_data'], censor: '[redacted]' },
  });
}
