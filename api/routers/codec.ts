/**
 * Remote payload codec for the Temporal Web UI and CLI (`--codec-endpoint`): decodes the
 * encrypted payloads of workflow histories so operators can read them.
 *
 * Authentication: when CODEC_AUTH_TOKEN is set, callers must send
 * `Authorization: Bearer <token>` (the UI's "pass access token" setting, the CLI's
 * --codec-auth). Without a token configured (the embedded development stack) only callers on
 * the loopback interface are served, judged by the socket's remote address and never by
 * X-Forwarded-For (which the caller writes), and only while the API itself listens on
 * loopback without TRUST_PROXY: behind a proxy every caller arrives from the proxy's address.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import * as t from 'io-ts';
import type { Config } from '../../activities/runtime/config';
import { EncryptionCodec } from '../../activities/runtime/payload-codec';
import { ApiError } from '../../domain/errors';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';

// Temporal's remote codec protocol sends temporal.api.common.v1.Payloads as protojson, which
// omits empty fields: no payloads is `{}`, a payload without data has no `data`.
const JsonPayload = t.partial({ metadata: t.union([t.record(t.string, t.string), t.null]), data: t.union([t.string, t.null]) });
const PayloadsBody = t.partial({ payloads: t.union([t.array(JsonPayload), t.null]) }, 'CodecPayloads');
const PayloadsAnswer = t.type({ payloads: t.array(JsonPayload) }, 'CodecPayloadsAnswer');

type JsonPayloadT = t.TypeOf<typeof JsonPayload>;

function fromJson(p: JsonPayloadT): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = new Uint8Array(Buffer.from(v, 'base64'));
  return { metadata, data: p.data ? new Uint8Array(Buffer.from(p.data, 'base64')) : undefined };
}

function toJson(p: Payload): { metadata: Record<string, string>; data?: string } {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, ...(p.data ? { data: Buffer.from(p.data).toString('base64') } : {}) };
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'cf-connecting-ip'];

function authorizeCodecCall(ctx: AppContext, config: Config): void {
  const token = config.codecAuthToken;
  if (!token) {
    const refuse = (why: string) => new ApiError('forbidden', `${why}; set CODEC_AUTH_TOKEN and send it as Authorization: Bearer <token>`);
    if (!(config.host === 'localhost' || isLoopback(config.host))) throw refuse(`the API listens on ${config.host}, not on loopback, so /codec/* needs a token`);
    if (config.trustProxy) throw refuse('with TRUST_PROXY=true requests arrive through a proxy, so /codec/* needs a token');
    if (FORWARDING_HEADERS.some((name) => ctx.get(name) !== '')) throw refuse('a request relayed by a proxy (Forwarded / X-Forwarded-For) is not a loopback caller');
    if (!isLoopback(ctx.req.socket.remoteAddress)) throw refuse('without a token /codec/* serves loopback callers only');
    return;
  }
  const header = ctx.get('authorization');
  const presented = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new ApiError('invalid_credentials', 'a valid Authorization: Bearer token is required');
  }
}

export function registerCodecRoutes(routes: RouteTable, deps: AppDeps): void {
  const codec = new EncryptionCodec(deps.keyring);
  for (const direction of ['encode', 'decode'] as const) {
    routes.add(
      {
        method: 'POST',
        path: `/codec/${direction}`,
        operationId: `codec${direction === 'encode' ? 'Encode' : 'Decode'}`,
        summary: `${direction === 'encode' ? 'Encrypt' : 'Decrypt'} Temporal payloads (remote codec for the Temporal UI and CLI)`,
        tag: 'Operations',
        area: 'default',
        auth: 'custom',
        unlimited: true,
        body: PayloadsBody,
        headers: [{ name: 'Authorization', description: 'Bearer <CODEC_AUTH_TOKEN>. Without a token configured only loopback callers of an API listening on loopback without TRUST_PROXY are served (by socket address; X-Forwarded-For is never believed here).' }],
        responses: {
          200: { description: 'Transformed payloads (`{"payloads": []}` for a request without payloads)', body: PayloadsAnswer },
          401: { description: 'INVALID_CREDENTIALS: CODEC_AUTH_TOKEN is set and the Authorization bearer token is missing or wrong' },
          403: { description: 'AUTHORIZATION_REQUIRED: no CODEC_AUTH_TOKEN is set and the caller is not served without one (not on loopback, relayed by a proxy, TRUST_PROXY, or an API listening beyond loopback)' },
        },
      },
      async (ctx, body) => {
        const payloads = (body.payloads ?? []).map(fromJson);
        const out = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
        ctx.body = { payloads: out.map(toJson) };
      },
      // Before the body is read: a caller that may not use the codec gets nothing parsed.
      [async (ctx, next) => {
        authorizeCodecCall(ctx, deps.config);
        return next();
      }],
    );
  }
}
