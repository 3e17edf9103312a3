/**
 * Contract consistency across areas, on the real stack: what the service says in one place
 * holds in every other (error vocabularies, messages, returned values accepted back, ids
 * that resolve, tokens and links that work).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, getStack } from '../support/stack';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The credential codes per area, as read from the spec's Errors table (see CREDENTIAL_CODES in
 * api/errors.ts for the reasoning): written out here so a change there is a visible decision.
 */
const CREDENTIAL_CODES: Record<string, { missing: string; invalid: string }> = {
  default: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  'dry-run': { missing: 'NOT_AUTHENTICATED', invalid: 'AuthenticationFail' },
  banking: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  enrollment: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  reports: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  whitelabel: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  sellers: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  campaigns: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  refunds: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
};

/** The keys of each area's error body (spec, "Errors"). */
const SHAPES: Record<string, string[]> = {
  default: ['code', 'message', 'request_id'],
  'dry-run': ['code', 'httpCode', 'messages'],
  banking: ['code', 'http_code', 'messages'],
  enrollment: ['code', 'messages'],
  reports: ['code', 'messages'],
  whitelabel: ['code', 'message'],
  sellers: ['code', 'message'],
  campaigns: ['code', 'details', 'message'],
  refunds: ['code', 'detail', 'errors', 'status', 'title', 'trace_id', 'type'],
};

interface Operation {
  method: string;
  path: string;
  operationId: string;
  area: string;
  security?: Array<Record<string, unknown>>;
}

async function operations(): Promise<Operation[]> {
  const doc = (await call('/v1/openapi.json')).body;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.push({ method: method.toUpperCase(), path, operationId: op.operationId, area: op['x-error-area'], security: op.security });
    }
  }
  return out;
}

/** A concrete URL for an OpenAPI path: every path parameter gets a well-formed UUID. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, () => randomUUID());
}

/** Operations that take the merchant key pair (not the system endpoints, not the codec). */
const byMerchantKeys = (op: Operation) => (op.security ?? []).some((s) => 'PublicApiKey' in s || 'PrivateSecretKey' in s);

describe('contract: credentials answer in the vocabulary of the route\'s area', function () {
  before(async function () {
    this.timeout(120_000);
    await getStack();
  });

  it('every operation declares its error area', async () => {
    for (const op of await operations()) assert.ok(op.area && op.area in CREDENTIAL_CODES, `${op.method} ${op.path}: x-error-area ${op.area}`);
  });

  for (const [label, headers, pick] of [
    ['without credentials', {}, 'missing'],
    ['with wrong credentials', { 'public-api-key': 'pk_not_issued', 'private-secret-key': 'sk_not_issued' }, 'invalid'],
  ] as const) {
    it(`every route of the route table answers 401 ${label} with its area's code and body shape`, async () => {
      const ops = (await operations()).filter(byMerchantKeys);
      assert.ok(ops.length > 60, `only ${ops.length} operations take the key pair`);
      const areas = new Set<string>();
      const wrong: string[] = [];
      for (const op of ops) {
        const body = ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined;
        const response = await call(concrete(op.path), { method: op.method, body, headers: { ...headers } });
        const expected = CREDENTIAL_CODES[op.area][pick];
        const code = op.area === 'campaigns' ? response.body?.details?.error_code : response.body?.code;
        const keys = Object.keys(response.body ?? {}).sort();
        if (response.status !== 401 || code !== expected || JSON.stringify(keys) !== JSON.stringify(SHAPES[op.area])) {
          wrong.push(`${op.method} ${op.path} (${op.area}): ${response.status} ${JSON.stringify(response.body)}, expected 401 ${expected}`);
        }
        if (op.area === 'campaigns') assert.equal(response.body.code, 401);
        areas.add(op.area);
      }
      assert.deepEqual(wrong, []);
      assert.deepEqual([...areas].sort(), Object.keys(CREDENTIAL_CODES).sort(), 'every area has routes with merchant keys');
    });
  }

  it('the OpenAPI document names each area\'s 401 code', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    for (const op of (await operations()).filter(byMerchantKeys)) {
      const description: string = doc.paths[op.path][op.method.toLowerCase()].responses['401'].description;
      const { missing, invalid } = CREDENTIAL_CODES[op.area];
      assert.ok(description.includes(missing) && description.includes(invalid), `${op.method} ${op.path}: ${description}`);
    }
  });
});
