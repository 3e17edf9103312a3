/**
 * @switchyard/client: a typed Switchyard API client. Paths, parameters, bodies and answers
 * are typed from the OpenAPI document (src/schema.d.ts, generated); calls go through
 * openapi-fetch with the merchant key pair on every request.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

export interface SwitchyardClientOptions {
  /** The API's origin, e.g. http://127.0.0.1:3000 (paths carry /v1 themselves). */
  baseUrl: string;
  /** The public API key (`pk_...`). */
  publicKey: string;
  /** The private secret key (`sk_...`); keep it on servers only. */
  secretKey?: string;
  /** Headers sent on every request besides the keys. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global one). */
  fetch?: ClientOptions['fetch'];
}

export type SwitchyardClient = Client<paths>;

/** The JSON answer of an operation for a status, e.g. `ResponseOf<'createPayment', 201>`. */
export type ResponseOf<O extends keyof operations, S extends keyof operations[O]['responses']> = operations[O]['responses'][S] extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes, e.g. `RequestOf<'createPayment'>`. */
export type RequestOf<O extends keyof operations> = operations[O] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[O] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;

export type Payment = ResponseOf<'getPayment', 200>;
export type PaymentCreate = RequestOf<'createPayment'>;
export type ApiErrorBody = components['schemas']['Error'];

export function createSwitchyardClient(options: SwitchyardClientOptions): SwitchyardClient {
  const headers: Record<string, string> = { ...(options.headers ?? {}), 'public-api-key': options.publicKey };
  if (options.secretKey) headers['private-secret-key'] = options.secretKey;
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
