import { pino, type Logger } from 'pino';

/**
 * JSON lines on stdout, `time` in ISO 8601 UTC (pino's isoTime: readable in a journal or
 * `docker logs` as it is, and still ordered as text). Authorization headers and secrets never
 * reach a log call; redaction is a second guard.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'detectd' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['*.authorization', '*.apiKey', '*.api_key', '*.password', '*.raw_data'], censor: '[redacted]' },
  });
}
