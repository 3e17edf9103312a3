/**
 * The OpenAPI document served at /v1/openapi.json as a test oracle: every answer the API gives
 * must be documented there (path template, method, status or `default`, content type) and its
 * JSON body must match the schema. Schemas compile once (ajv, draft 2020-12: the dialect of
 * OpenAPI 3.1) and are cached by JSON pointer into the document.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { AssertionError } from 'node:assert';

export interface Exchange {
  method: string;
  /** Request path, query string allowed. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };

const DOC_ID = 'https://switchyard.invalid/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface PathEntry {
  template: string;
  pattern: RegExp;
  literals: number;
}

export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly paths: PathEntry[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly doc: Doc) {
    addFormats(this.ajv);
    // The whole document is one schema resource, so the response schemas' local
    // `#/components/schemas/...` references resolve in place.
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
    this.paths = Object.keys(doc.paths)
      .map((template) => {
        const segments = template.split('/').filter(Boolean);
        const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/');
        // Case-insensitive and trailing slash optional, as @koa/router matches.
        return { template, pattern: new RegExp(`^/${source}/?$`, 'i'), literals: segments.filter((s) => !s.startsWith('{')).length };
      })
      // A concrete path wins over a templated one (OpenAPI "Path Templating Matching").
      .sort((a, b) => b.literals - a.literals);
  }

  /** What is wrong with the exchange according to the document; empty when it is documented. */
  violations(exchange: Exchange): string[] {
    const method = exchange.method.toLowerCase();
    const path = exchange.path.split('?')[0];
    const candidates = this.paths.filter((p) => p.pattern.test(path));
    const contentType = (exchange.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const label = `${exchange.method} ${path} answered ${exchange.status} ${contentType || '(no content type)'}`;
    const bodyExcerpt = `body: ${exchange.text.slice(0, 400) || '(empty)'}`;
    // Unknown paths: the service-wide 404 in the default error shape.
    if (candidates.length === 0) {
      if (exchange.status !== 404) return [`${label}: no path of the document matches, so the answer must be 404 (${bodyExcerpt})`];
      return this.checkBody(label, 'the Error schema', '#/components/schemas/Error', contentType, exchange.text);
    }
    const lookup = method === 'head' ? 'get' : method;
    const entry = candidates.find((c) => this.doc.paths[c.template][lookup]) ?? candidates[0];
    const item = this.doc.paths[entry.template];
    // A URL can match several templates (/v1/customers/sessions and /v1/customers/{id}): the
    // router allows the methods of all of them.
    const documented = [...new Set(candidates.flatMap((c) => METHODS.filter((m) => this.doc.paths[c.template][m])))];
    if (!item[lookup]) return this.checkUndocumentedMethod(label, exchange, item, documented);
    const operation = item[lookup];
    const where = `${operation.operationId} (${exchange.method} ${entry.template})`;
    const statusKey = this.statusKey(operation.responses, exchange.status);
    if (!statusKey) {
      return [`${where}: status ${exchange.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}); ${bodyExcerpt}`];
    }
    const response = operation.responses[statusKey];
    if (method === 'head' || exchange.status === 204 || exchange.status === 304) {
      return exchange.text === '' ? [] : [`${where}: ${exchange.status} must not carry a body; ${bodyExcerpt}`];
    }
    const content: Record<string, { schema?: unknown }> | undefined = response.content;
    if (!content) return exchange.text === '' ? [] : [`${where}: ${exchange.status} is documented without content but carries ${contentType}; ${bodyExcerpt}`];
    const mediaType = Object.keys(content).find((m) => mediaTypeMatches(m, contentType));
    if (!mediaType) return [`${where}: ${exchange.status} answered ${contentType || 'no content type'}, documented: ${Object.keys(content).join(', ')}; ${bodyExcerpt}`];
    if (!content[mediaType].schema || !isJson(mediaType)) return [];
    const pointer = `#/paths/${escapePointer(entry.template)}/${lookup}/responses/${statusKey}/content/${escapePointer(mediaType)}/schema`;
    return this.checkBody(`${where} answered ${exchange.status} ${mediaType}`, 'the documented schema', pointer, contentType, exchange.text);
  }

  /** 405 in the path's area error shape with Allow naming the documented methods; OPTIONS 204. */
  private checkUndocumentedMethod(label: string, exchange: Exchange, item: Record<string, any>, documented: string[]): string[] {
    const expected = new Set(documented.map((m) => m.toUpperCase()));
    if (expected.has('GET')) expected.add('HEAD');
    const allow = new Set((exchange.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean));
    const method = exchange.method.toUpperCase();
    // A CORS preflight is answered by the CORS layer (Access-Control-Allow-Methods, not Allow).
    if (method === 'OPTIONS' && exchange.headers.get('access-control-allow-methods')) return [];
    const out: string[] = [];
    if (method === 'OPTIONS' ? exchange.status !== 204 : exchange.status !== 405) {
      out.push(`${label}: ${method} is not an operation of the path, so the answer must be ${method === 'OPTIONS' ? 204 : 405}`);
    }
    if ([...expected].sort().join() !== [...allow].sort().join()) {
      out.push(`${label}: Allow "${[...allow].join(', ')}" does not list the documented methods ${[...expected].join(', ')}`);
    }
    if (method === 'OPTIONS' || out.length) return out;
    // The error schema of the path's area: the one its operations' 500 answers reference.
    const operation = item[METHODS.find((m) => item[m])!];
    const ref: string = (Object.values(operation.responses['500']?.content ?? {})[0] as { schema?: { $ref?: string } } | undefined)?.schema?.$ref ?? '#/components/schemas/Error';
    const contentType = (exchange.headers.get('content-type') ?? '').split(';')[0].trim();
    return this.checkBody(label, `the ${operation['x-error-area']} area's error schema`, ref, contentType, exchange.text);
  }

  private statusKey(responses: Record<string, unknown>, status: number): string | undefined {
    if (responses[String(status)]) return String(status);
    const range = `${String(status)[0]}XX`;
    if (responses[range]) return range;
    return responses.default ? 'default' : undefined;
  }

  private checkBody(label: string, what: string, pointer: string, contentType: string, text: string): string[] {
    if (!/json/.test(contentType)) return [`${label}: ${what} expects JSON, got ${contentType || 'no content type'}; body: ${text.slice(0, 400)}`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${label}: ${what}: the body is not JSON: ${text.slice(0, 400)}`];
    }
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    return [`${label}: the body does not match ${what}: ${formatErrors(validate.errors)}; body: ${text.slice(0, 600)}`];
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOC_ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer} of the OpenAPI document`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  if (documented === '*/*' || documented === actual) return true;
  return documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1));
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

let contract: Promise<OpenApiContract> | undefined;
/** Reported drifts, by their message without the body (bodies differ in ids), with a count. */
const reported = new Map<string, number>();

/** The document every Switchyard API of this test run serves (the route table is one). */
function contractOf(baseUrl: string): Promise<OpenApiContract> {
  contract ??= fetch(`${baseUrl}/v1/openapi.json`)
    .then((r) => r.json())
    .then((doc) => new OpenApiContract(doc as Doc))
    .catch((error) => {
      contract = undefined;
      throw error;
    });
  return contract;
}

/**
 * Fails the calling test when the answer is not in the document. OPENAPI_DRIFT=report
 * collects instead (printed after the run), to list every drift of a run at once.
 */
export async function assertDocumented(baseUrl: string, exchange: Exchange): Promise<void> {
  const found = (await contractOf(baseUrl)).violations(exchange);
  if (found.length === 0) return;
  if (process.env.OPENAPI_DRIFT === 'report') {
    for (const drift of found) {
      const key = drift.replace(/;? ?\(?body: .*$/s, '');
      reported.set(key, (reported.get(key) ?? 0) + 1);
    }
    return;
  }
  throw new AssertionError({ message: `answer outside the OpenAPI document:\n  ${found.join('\n  ')}` });
}

export function reportedDrifts(): ReadonlyMap<string, number> {
  return reported;
}
