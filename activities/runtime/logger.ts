/**
 * JSON logs (pino). Credential headers and card fields are censored by path so that a
 * careless log call cannot leak them; redaction of free text happens before logging.
 */
import pino from 'pino';

export type Logger = pino.Logger;

const SENSITIVE_PATHS = [
  'req.headers["private-secret-key"]',
  'req.headers["x-private-secret-key"]',
  'req.headers["public-api-key"]',
  'req.headers["x-public-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.number',
  '*.security_code',
  '*.cvv',
  '*.pan',
  '*.private_secret_key',
  '*.access_token',
];

/** `destination` defaults to stdout; tests pass a stream to inspect what would be logged. */
export function createLogger(level = process.env.LOG_LEVEL || 'info', name = 'switchyard', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: { paths: SENSITIVE_PATHS, censor: '[REDACTED]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
