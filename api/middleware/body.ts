/**
 * JSON body handling: 415 for a body that is not JSON, 413 past the size limit, 400 for
 * malformed JSON. The limit fits the largest legal call, a dry-run registration of 10 events
 * at their maximum encoded sizes (10 x (1,398,000 + 87,400) characters plus JSON framing).
 */
import { bodyParser } from '@koa/bodyparser';
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';

export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

const parseJson = bodyParser({
  enableTypes: ['json'],
  jsonLimit: MAX_JSON_BODY_BYTES,
  encoding: 'utf-8',
  onError: (error) => {
    const status = (error as { status?: number }).status;
    if (status === 413) throw new ApiError('payload_too_large', `request body is larger than ${MAX_JSON_BODY_BYTES} bytes`);
    throw new ApiError('validation', 'request body is not valid JSON', { code: undefined });
  },
});

function hasBody(ctx: AppContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

export function jsonBody() {
  return async (ctx: AppContext, next: Next) => {
    if (hasBody(ctx)) {
      if (!ctx.is('application/json', 'application/*+json')) {
        throw new ApiError('unsupported_media_type', 'Content-Type must be application/json');
      }
      const length = Number(ctx.get('content-length'));
      if (Number.isFinite(length) && length > MAX_JSON_BODY_BYTES) {
        throw new ApiError('payload_too_large', `request body is larger than ${MAX_JSON_BODY_BYTES} bytes`);
      }
      await parseJson(ctx as never, async () => undefined);
    }
    await next();
  };
}
