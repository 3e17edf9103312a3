/**
 * The OpenAPI 3.1 document, generated from the route table and the io-ts codecs.
 */
import { SchemaRegistry } from '../domain/codecs/json-schema';
import { CREDENTIAL_CODES, type ErrorArea } from './errors';
import { readsJsonBody, type RouteSpec } from './routes';

const ERROR_SCHEMAS: Record<ErrorArea, Record<string, unknown>> = {
  default: {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
      details: { type: 'object', description: 'facts about the conflict, e.g. existing_id of the resource that already holds a unique value' },
      request_id: { type: 'string' },
    },
  },
  'dry-run': {
    type: 'object',
    required: ['code', 'messages', 'httpCode'],
    properties: { code: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } }, httpCode: { type: 'integer' } },
  },
  banking: {
    type: 'object',
    required: ['code', 'messages', 'http_code'],
    properties: { code: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } }, http_code: { type: 'integer' } },
  },
  enrollment: {
    type: 'object',
    required: ['code', 'messages'],
    properties: { code: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } } },
  },
  reports: {
    type: 'object',
    required: ['code', 'messages'],
    properties: { code: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } } },
  },
  whitelabel: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  sellers: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  campaigns: {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'integer', description: 'HTTP status' }, message: { type: 'string' }, details: {} },
  },
  refunds: {
    type: 'object',
    required: ['type', 'code', 'title', 'status', 'detail', 'trace_id', 'errors'],
    properties: {
      type: { type: 'string', format: 'uri' },
      code: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      trace_id: { type: 'string' },
      errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
    },
  },
};

/** Every error body, whatever its area's shape, also links to the docs page section of its code. */
function withDocUrl(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown>;
  return {
    ...schema,
    required: [...(schema.required as string[]), 'doc_url'],
    properties: {
      ...properties,
      doc_url: {
        type: 'string',
        format: 'uri',
        description: 'the section of the API docs page explaining this error code and what to do about it: `<base>/docs#errors-<code>` (lower case, `_` as `-`), or `<base>/docs#errors-area-<area>` for a code without its own section',
        examples: ['http://127.0.0.1:3000/docs#errors-payment-not-found'],
      },
    },
  };
}

const AREA_SCHEMA_NAME: Record<ErrorArea, string> = {
  default: 'Error',
  'dry-run': 'DryRunError',
  banking: 'BankingError',
  enrollment: 'EnrollmentError',
  reports: 'ReportError',
  whitelabel: 'WhitelabelError',
  sellers: 'SellerError',
  campaigns: 'CampaignError',
  refunds: 'ProblemDetails',
};

/** Koa's /a/:b becomes OpenAPI's /a/{b}. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid request (a query parameter or the body); also a body that is not UTF-8, not a JSON object or array, nested deeper than 64 levels, or holding a `__proto__` key',
  401: 'Missing or invalid credentials',
  413: 'Payload too large',
  415: 'Content-Type is not application/json',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'Unexpected error',
  503: 'SERVICE_UNAVAILABLE: the workflow did not confirm the request within LIFECYCLE_SYNC_WAIT_MS; retry it with the same X-Idempotency-Key, which joins the same workflow',
};

/** The 401 answer of an area, in the words of its credential vocabulary. */
function unauthorizedDescription(area: ErrorArea): string {
  const { missing, invalid } = CREDENTIAL_CODES[area];
  return missing === invalid
    ? `${missing}: credentials missing or not valid`
    : `${missing}: no credentials sent; ${invalid}: the credentials sent are not valid`;
}

export function buildOpenApi(specs: RouteSpec[], serverUrl: string): Record<string, unknown> {
  const registry = new SchemaRegistry();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const path = openApiPath(spec.path);
    const parameters: unknown[] = [];
    const pathNames = [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    for (const name of pathNames) {
      const doc = spec.pathParams?.find((p) => p.name === name);
      parameters.push({ name, in: 'path', required: true, description: doc?.description ?? name, schema: doc?.schema ?? { type: 'string' } });
    }
    for (const q of spec.query ?? []) parameters.push({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: q.schema ?? { type: 'string' } });
    for (const h of spec.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: h.schema ?? { type: 'string' } });
    if (spec.idempotency && !(spec.headers ?? []).some((h) => h.name.toLowerCase() === 'x-idempotency-key')) {
      parameters.push({
        name: 'X-Idempotency-Key',
        in: 'header',
        required: spec.idempotency.required,
        description: `Idempotency key (${spec.idempotency.format === 'uuid' ? 'UUID' : 'up to 64 characters'}); replayed for 24 hours.`,
        schema: spec.idempotency.format === 'uuid' ? { type: 'string', format: 'uuid' } : { type: 'string', maxLength: 64 },
      });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      const schema = response.body ? registry.schemaOf(response.body) : response.schema;
      responses[status] = {
        description: response.description,
        ...(schema ? { content: Object.fromEntries([response.contentType ?? 'application/json'].flat().map((type) => [type, { schema }])) } : {}),
      };
    }
    // Refund errors are RFC 9457 problem details, served as such (see applyError).
    const errorContent = { [spec.area === 'refunds' ? 'application/problem+json' : 'application/json']: { schema: { $ref: `#/components/schemas/${AREA_SCHEMA_NAME[spec.area]}` } } };
    const errorStatuses = [
      ...(spec.auth !== 'none' && spec.auth !== 'custom' ? [401] : []),
      ...(spec.unlimited ? [] : [429]),
      ...(readsJsonBody(spec) || spec.query?.length ? [400] : []),
      ...(readsJsonBody(spec) ? [413, 415] : []),
      500,
      ...(spec.awaitsWorkflow ? [503] : []),
    ];
    for (const status of errorStatuses) {
      if (!responses[status]) {
        const description = status === 401 ? unauthorizedDescription(spec.area) : STANDARD_ERRORS[status];
        responses[status] = { description, content: errorContent };
      }
    }
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 400 && !(response as { content?: unknown }).content) {
        (response as Record<string, unknown>).content = errorContent;
      }
    }
    const security =
      spec.auth === 'pair'
        ? [{ PublicApiKey: [], PrivateSecretKey: [] }]
        : spec.auth === 'either'
          ? [{ PublicApiKey: [] }, { PrivateSecretKey: [] }]
          : spec.auth === 'pair-or-bearer'
            ? [{ PublicApiKey: [], PrivateSecretKey: [] }, { WhitelabelBearer: [] }]
          : spec.auth === 'custom'
            ? [{ CodecBearer: [] }, {}]
            : [];
    paths[path] ??= {};
    paths[path][spec.method.toLowerCase()] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: registry.schemaOf(spec.body) } } } } : {}),
      responses,
      // Which row of the spec's Errors table (body shape and codes) this operation answers in.
      'x-error-area': spec.area,
      ...(security ? { security } : {}),
      ...(spec.deprecated ? { deprecated: true } : {}),
    };
  }
  const schemas: Record<string, unknown> = {
    ...registry.components,
    FieldError: {
      type: 'object',
      required: ['field', 'code', 'message'],
      properties: {
        field: { type: 'string', description: 'path of the field in the request, dot-separated (`payment_method.detail.card.number`, `events.0.type`), or the header / query parameter name' },
        code: { type: 'string', description: '`REQUIRED`, `INVALID`, `OUT_OF_RANGE`, `CARD_EXPIRED`...' },
        message: { type: 'string' },
        expected: { type: 'string', description: 'what the field must be, in words (e.g. `a UUID (36 characters)`), when the schema says it' },
      },
    },
  };
  for (const [area, schema] of Object.entries(ERROR_SCHEMAS)) schemas[AREA_SCHEMA_NAME[area as ErrorArea]] = withDocUrl(schema);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard payment orchestration API',
      version: '1.0.0',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        'REST/JSON API of Switchyard. Authenticate with the public API key and private secret key headers ' +
        '(names are case-insensitive; campaigns also accept X-Public-Api-Key / X-Private-Secret-Key). ' +
        'Amounts are decimals with at most 4 places. Idempotent endpoints replay the first answer for 24 hours. ' +
        'JSON bodies are UTF-8 (invalid bytes answer 400), nest objects and arrays at most 64 levels deep and may not contain a `__proto__` key. ' +
        'A method a path does not support answers 405 with an Allow header, in the error shape of the path\'s area.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        PublicApiKey: { type: 'apiKey', in: 'header', name: 'public-api-key' },
        PrivateSecretKey: { type: 'apiKey', in: 'header', name: 'private-secret-key' },
        CodecBearer: { type: 'http', scheme: 'bearer', description: 'CODEC_AUTH_TOKEN; without one configured, only loopback callers (by socket address) of an API bound to loopback without TRUST_PROXY are served' },
        WhitelabelBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Whitelabel embed token from POST /v1/organizations/authenticate, sent as `Authorization: Bearer <access_token>`. ' +
            'Accepted instead of the key pair on read endpoints of the token\'s organization (those listing it under security); ' +
            'valid for expires_in seconds, refused once the user is disabled.',
        },
      },
      schemas,
    },
    paths,
  };
}
