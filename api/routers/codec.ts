/**
 * Remote payload codec for the Temporal Web UI and CLI (`--codec-endpoint`): decodes the
 * encrypted payloads of workflow histories so operators can read them.
 *
 * Authentication: when CODEC_AUTH_TOKEN is set, callers must send
 * `Authorization: Bearer <token>` (the UI's "pass access token" setting, the CLI's
 * --codec-auth). Without a token configured (the embedded development stack) only callers on
 * the loopback interface are served.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import * as t from 'io-ts';
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

function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

function authorizeCodecCall(ctx: AppContext, token: string): void {
  if (!token) {
    if (!isLoopback(ctx.ip)) throw new ApiError('forbidden', 'the codec endpoint serves loopback callers only unless CODEC_AUTH_TOKEN is set');
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
        headers: [{ name: 'Authorization', description: 'Bearer <CODEC_AUTH_TOKEN> when a token is configured' }],
        responses: { 200: { description: 'Transformed payloads (`{"payloads": []}` for a request without payloads)', body: PayloadsAnswer } },
      },
      async (ctx, body) => {
        authorizeCodecCall(ctx, deps.config.codecAuthToken);
        const payloads = (body.payloads ?? []).map(fromJson);
        const out = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
        ctx.body = { payloads: out.map(toJson) };
      },
    );
  }
}
