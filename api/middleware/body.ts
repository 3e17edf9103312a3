/**
 * JSON body handling. The answers, in order:
 * - 415 for a body that is not JSON, or a Content-Encoding other than gzip, deflate or br;
 * - 413 past the size limit (counted after decompression). The limit fits the largest legal
 *   call, a dry-run registration of 10 events at their maximum encoded sizes
 *   (10 x (1,398,000 + 87,400) characters plus JSON framing);
 * - 400 for bytes that are not UTF-8 (refused, never replaced by U+FFFD), a body that is not
 *   a JSON object or array, malformed JSON, nesting deeper than MAX_NESTING_DEPTH levels, a
 *   `__proto__` key, or a key or string holding U+0000 or a lone surrogate (each named with
 *   its path: no store keeps such text as sent).
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import { jsonMayCarryUnstorableText, jsonNestingExceeds, MAX_NESTING_DEPTH, prototypeKey, unstorableTextPath } from '../../domain/nesting';
import type { AppContext } from '../context';

export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

const tooLarge = () => new ApiError('payload_too_large', `request body is larger than ${MAX_JSON_BODY_BYTES} bytes`);

function hasBody(ctx: AppContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

function decoded(ctx: AppContext): Readable {
  const coding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  if (coding === 'identity') return ctx.req;
  const inflate = coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : null;
  if (!inflate) throw new ApiError('unsupported_media_type', `Content-Encoding ${coding} is not supported (gzip, deflate, br or identity)`);
  ctx.req.on('error', (error) => inflate.destroy(error));
  return ctx.req.pipe(inflate);
}

/** The body's bytes, at most MAX_JSON_BODY_BYTES of them after decompression. */
function readBody(ctx: AppContext): Promise<Buffer> {
  const stream = decoded(ctx);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error?: ApiError) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      if (stream !== ctx.req) {
        ctx.req.unpipe(stream as never);
        stream.destroy();
      }
      if (!error) return;
      // Discard what the client still sends, so it reads the answer and the socket stays usable.
      if (!ctx.req.readableEnded) ctx.req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_JSON_BODY_BYTES) return stop(tooLarge());
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: NodeJS.ErrnoException) => {
      const problem = stream === ctx.req
        ? new ApiError('validation', 'request body could not be read completely')
        : new ApiError('validation', `request body does not decode with Content-Encoding ${ctx.get('content-encoding')}`);
      stop(error.code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge() : problem);
    };
    stream.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses the bytes of a JSON request body, or throws the 400 that says what is wrong. */
export function parseJsonBody(bytes: Buffer): { value: unknown; text: string } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('validation', 'request body is not valid UTF-8');
  }
  if (text.trim() === '') return { value: {}, text };
  if (!/^[\x20\x09\x0a\x0d]*[[{]/.test(text)) throw new ApiError('validation', 'request body is not valid JSON: it must be a JSON object or array');
  if (jsonNestingExceeds(text)) {
    throw new ApiError('validation', `request body nests objects and arrays deeper than ${MAX_NESTING_DEPTH} levels, the limit`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the body; the caller has it already and logs should not.
    throw new ApiError('validation', 'request body is not valid JSON');
  }
  const forbidden = prototypeKey(value);
  if (forbidden) {
    const message = `the body must not contain the key "${forbidden.key}" (at ${forbidden.path})`;
    throw new ApiError('validation', message, { fieldErrors: [{ field: forbidden.path, code: 'FORBIDDEN_KEY', message }] });
  }
  const unstorable = jsonMayCarryUnstorableText(text) ? unstorableTextPath(value) : null;
  if (unstorable !== null) {
    const field = unstorable || '(root)';
    const message = `${field} must not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate`;
    throw new ApiError('validation', message, { fieldErrors: [{ field, code: 'INVALID', message }] });
  }
  return { value, text };
}

export function jsonBody() {
  return async (ctx: AppContext, next: Next) => {
    if (hasBody(ctx)) {
      if (!ctx.is('application/json', 'application/*+json')) {
        throw new ApiError('unsupported_media_type', 'Content-Type must be application/json');
      }
      const length = Number(ctx.get('content-length'));
      if (Number.isFinite(length) && length > MAX_JSON_BODY_BYTES) throw tooLarge();
      const { value, text } = parseJsonBody(await readBody(ctx));
      ctx.request.body = value;
      ctx.request.rawBody = text;
    }
    await next();
  };
}
