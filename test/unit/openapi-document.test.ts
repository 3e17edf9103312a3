import assert from 'node:assert/strict';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { CREDENTIAL_CODES, renderError, type ErrorArea } from '../../api/errors';
import { buildOpenApi } from '../../api/openapi';
import { loadConfig } from '../../activities/runtime/config';
import { ApiError, type ErrorKind } from '../../domain/errors';
import { OpenApiContract } from '../support/openapi-contract';

/** The document as the API builds it, from a route table mounted on inert dependencies. */
function document(): Record<string, any> {
  const inert = { config: loadConfig(), db: { collection: () => ({}) }, keyring: {}, temporal: {}, logger: {}, metrics: {} } as unknown as AppDeps;
  return buildOpenApi(createApp(inert).routes.specs, 'http://127.0.0.1:3000');
}

const json = (headers: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json', ...headers });

describe('OpenAPI document (unit)', () => {
  const doc = document();
  const contract = new OpenApiContract(doc as never);

  it('is a valid OpenAPI 3.1 document', async () => {
    const { Validator } = (await import('@seriousme/openapi-schema-validator')) as { Validator: new () => { validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown }>; version: string } };
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(validator.version, '3.1');
    assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
  });

  it('every error body of every area matches the schema its operations document', () => {
    const kinds: ErrorKind[] = ['validation', 'unauthenticated', 'invalid_credentials', 'forbidden', 'not_found', 'method_not_allowed', 'conflict', 'request_in_process', 'payload_too_large', 'unsupported_media_type', 'unprocessable', 'rate_limited', 'internal', 'unavailable'];
    // One operation per area, answering its documented 500 (the area's shape).
    const byArea = new Map<string, string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) if (!byArea.has(op['x-error-area'])) byArea.set(op['x-error-area'], `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, 'x')}`);
    }
    assert.deepEqual([...byArea.keys()].sort(), Object.keys(CREDENTIAL_CODES).sort());
    for (const [area, operation] of byArea) {
      const [method, path] = operation.split(' ');
      for (const kind of kinds) {
        const error = new ApiError(kind, 'why', { fieldErrors: [{ field: 'f', code: 'INVALID', message: 'why' }], status: 500 });
        const headers = area === 'refunds' ? new Headers({ 'content-type': 'application/problem+json' }) : json();
        const problems = contract.violations({ method, path, status: 500, headers, text: JSON.stringify(renderError(area as ErrorArea, error, 'r1', 'http://sw.example')) });
        assert.deepEqual(problems, [], `${area} ${kind}`);
      }
    }
  });

  it('tells documented answers from undocumented ones', () => {
    const ping = { id: '6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', message: 'hi', created_at: '2030-01-01T00:00:00Z' };
    const documented = contract.violations({ method: 'GET', path: '/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', status: 404, headers: json(), text: JSON.stringify({ code: 'NOT_FOUND', message: 'no', request_id: 'r', doc_url: 'http://sw.example/docs#errors-not-found' }) });
    assert.deepEqual(documented, []);
    const cases: Array<[string, Parameters<OpenApiContract['violations']>[0], RegExp]> = [
      ['status', { method: 'GET', path: '/v1/pings/x', status: 418, headers: json(), text: '{}' }, /getPing \(GET \/v1\/pings\/\{ping_id\}\): status 418 is not documented/],
      ['body', { method: 'GET', path: '/v1/pings/x', status: 200, headers: json(), text: JSON.stringify({ ...ping, id: 42 }) }, /\/id must be string/],
      ['content type', { method: 'GET', path: '/v1/pings/x', status: 200, headers: new Headers({ 'content-type': 'text/html' }), text: '<p>' }, /answered text\/html, documented: application\/json/],
      ['not JSON', { method: 'GET', path: '/v1/pings/x', status: 200, headers: json(), text: '{' }, /not JSON/],
      ['405 Allow', { method: 'PUT', path: '/v1/pings/x', status: 405, headers: json({ allow: 'GET' }), text: '{"code":"METHOD_NOT_ALLOWED","message":"no","doc_url":"http://sw.example/docs#errors-method-not-allowed"}' }, /Allow "GET" does not list the documented methods/],
      ['501', { method: 'PUT', path: '/v1/pings/x', status: 501, headers: json({ allow: 'HEAD, GET' }), text: '' }, /must be 405/],
      ['405 shape', { method: 'PUT', path: '/v1/campaigns/x', status: 405, headers: json({ allow: 'HEAD, GET, PATCH, DELETE' }), text: '{"code":"METHOD_NOT_ALLOWED","message":"no","doc_url":"http://sw.example/docs#errors-method-not-allowed"}' }, /campaigns area's error schema: \/code must be integer/],
      ['unknown path', { method: 'GET', path: '/v1/nowhere', status: 200, headers: json(), text: '{}' }, /no path of the document matches/],
    ];
    for (const [label, exchange, expected] of cases) {
      const problems = contract.violations(exchange);
      assert.ok(problems.some((p) => expected.test(p)), `${label}: ${JSON.stringify(problems)}`);
    }
  });

  it('a literal path wins over a template, as the router matches', () => {
    // /v1/customers/sessions is its own path, not /v1/customers/{customer_id}.
    const problems = contract.violations({ method: 'POST', path: '/v1/customers/sessions', status: 409, headers: json(), text: '{}' });
    assert.match(problems[0], /^createCustomerSession /);
  });
});
