/**
 * Ingest of one registered event: base64 -> bytes -> headers and body in a structured,
 * redacted form. Bodies are decoded per their declared Content-Encoding (gzip, deflate, br)
 * and Content-Type (JSON, form-urlencoded, XML, text); anything else is binary and is not
 * stored (its bytes cannot be redacted reliably). A body that contradicts its declaration
 * raises TRAFFIC_LOG_BODY_ENCODING_MISMATCH.
 *
 * Pure and synchronous (node:zlib's sync API only), so it can run inline for small
 * registrations or in a worker thread for large ones.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { DryRunEvent, EventType, OperationType } from './codecs';
import { DRY_RUN_LIMITS } from './codecs';
import { jsonNestingExceeds, MAX_NESTING_DEPTH, xmlNestingExceeds } from '../nesting';
import { HeaderEntry, quoteBarePans, Redactor, setOwn } from './redact';

export type BodyFormat = 'empty' | 'json' | 'form' | 'xml' | 'text' | 'binary';

export interface StoredBody {
  format: BodyFormat;
  content_type: string | null;
  content_encoding: string | null;
  /** Bytes after base64 decoding. */
  encoded_bytes: number;
  /** Bytes after decompression. */
  decoded_bytes: number;
  /** Redacted text (pretty-printed for JSON); absent for binary and empty bodies. */
  text?: string;
}

export interface StoredEvent {
  type: EventType;
  http_method: string;
  operation_type: OperationType;
  base_url: string | null;
  endpoint: string | null;
  http_status_code: number | null;
  headers_format: 'json' | 'raw' | 'empty';
  headers: HeaderEntry[];
  body: StoredBody;
}

/** Why an event was rejected; mapped to the TRAFFIC_LOG_* table by the caller. */
export class IngestError extends Error {
  constructor(readonly reason: 'too_large' | 'encoding_mismatch' | 'semantic' | 'invalid', message: string) {
    super(message);
  }
}

export function base64Bytes(value: string): Buffer {
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Upper bound of the decoded size of a base64 string, without decoding it. */
export function base64DecodedLength(value: string): number {
  let padding = 0;
  if (value.endsWith('==')) padding = 2;
  else if (value.endsWith('=')) padding = 1;
  const chars = value.length - padding;
  return Math.floor((chars * 3) / 4);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function strictUtf8(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Decoded headers: a JSON object of header -> value, or a raw HTTP header block. */
export function parseHeaders(text: string): { format: 'json' | 'raw' | 'empty'; entries: HeaderEntry[] } | null {
  const trimmed = text.trim();
  if (!trimmed) return { format: 'empty', entries: [] };
  if (trimmed.startsWith('{')) {
    if (jsonNestingExceeds(trimmed)) throw new IngestError('invalid', `headers nest deeper than ${MAX_NESTING_DEPTH} levels, the limit`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return null;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const entries: HeaderEntry[] = [];
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
        entries.push({ name, value: String(v) });
      }
    }
    return { format: 'json', entries };
  }
  const lines = trimmed.split(/\r?\n/);
  // A leading request line ("POST /pay HTTP/1.1") or status line ("HTTP/1.1 200 OK") is allowed.
  if (/^(HTTP\/\d(\.\d)?\s+\d{3}|[A-Z]+\s+\S+\s+HTTP\/\d(\.\d)?)/.test(lines[0])) lines.shift();
  const entries: HeaderEntry[] = [];
  for (const line of lines) {
    if (line === '') break; // end of the header block
    if (/^[ \t]/.test(line) && entries.length) {
      entries[entries.length - 1].value += ` ${line.trim()}`; // obsolete line folding
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) return null;
    entries.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
  }
  return { format: 'raw', entries };
}

export function headerValue(entries: HeaderEntry[], name: string): string | null {
  const wanted = name.toLowerCase();
  return entries.find((e) => e.name.toLowerCase() === wanted)?.value ?? null;
}

function decompress(bytes: Buffer, contentEncoding: string | null): { bytes: Buffer; binaryReason?: string } {
  if (!contentEncoding) return { bytes };
  const codings = contentEncoding.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s && s !== 'identity');
  let out = bytes;
  const options = { maxOutputLength: DRY_RUN_LIMITS.bodyDecompressedBytes };
  for (const coding of codings.reverse()) {
    try {
      if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out, options);
      else if (coding === 'br') out = brotliDecompressSync(out, options);
      else if (coding === 'deflate') {
        // RFC 9110 deflate is zlib-wrapped; some servers send raw deflate.
        try {
          out = inflateSync(out, options);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
          out = inflateRawSync(out, options);
        }
      } else return { bytes: out, binaryReason: `Content-Encoding ${coding} is not decoded` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new IngestError('too_large', `body decompresses to more than ${DRY_RUN_LIMITS.bodyDecompressedBytes} bytes`);
      }
      throw new IngestError('encoding_mismatch', `body does not decode with the declared Content-Encoding ${coding}`);
    }
  }
  return { bytes: out };
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function formatOf(type: string): BodyFormat | 'sniff' {
  if (!type) return 'sniff';
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/json') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('text/')) return 'text';
  return 'binary';
}

const xmlOptions = { ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, parseAttributeValue: false, trimValues: true, processEntities: true };

export interface ParsedBody {
  format: BodyFormat;
  value?: unknown;
  text?: string;
}

const tooDeep = (what: string) => new IngestError('invalid', `${what} nests ${what.startsWith('XML') ? 'elements' : 'objects and arrays'} deeper than ${MAX_NESTING_DEPTH} levels, the limit`);

/**
 * Parses redacted stored text back into a value (used by the validation pipeline). Stored
 * text passed the nesting limit at ingest; it is checked again because callers walk it.
 */
export function parseStoredBody(body: StoredBody): ParsedBody {
  if (body.text === undefined) return { format: body.format };
  switch (body.format) {
    case 'json':
      if (jsonNestingExceeds(body.text)) throw tooDeep('body');
      return { format: 'json', value: JSON.parse(body.text), text: body.text };
    case 'form':
      return { format: 'form', value: formToObject(body.text), text: body.text };
    case 'xml':
      if (xmlNestingExceeds(body.text)) throw tooDeep('XML body');
      return { format: 'xml', value: new XMLParser(xmlOptions).parse(body.text), text: body.text };
    default:
      return { format: body.format, text: body.text };
  }
}

export function formToObject(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    setOwn(out, key, existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]);
  }
  return out;
}

const FORM = /^(?:[^=&]*(?:=[^&]*)?)(?:&[^=&]*(?:=[^&]*)?)*$/;

/** Decodes, checks and redacts one body. */
export function ingestBody(base64: string | undefined, entries: HeaderEntry[], redactor: Redactor): StoredBody {
  const contentType = headerValue(entries, 'content-type');
  const contentEncoding = headerValue(entries, 'content-encoding');
  const base = { content_type: contentType, content_encoding: contentEncoding };
  if (!base64) return { format: 'empty', ...base, encoded_bytes: 0, decoded_bytes: 0 };
  const raw = base64Bytes(base64);
  if (raw.length > DRY_RUN_LIMITS.bodyDecodedBytes) throw new IngestError('too_large', `body decodes to ${raw.length} bytes; the limit is ${DRY_RUN_LIMITS.bodyDecodedBytes}`);
  const { bytes, binaryReason } = decompress(raw, contentEncoding);
  const sizes = { encoded_bytes: raw.length, decoded_bytes: bytes.length };
  if (bytes.length === 0) return { format: 'empty', ...base, ...sizes };
  let format = binaryReason ? 'binary' : formatOf(mediaType(contentType));
  if (format === 'binary') return { format: 'binary', ...base, ...sizes };
  const text = strictUtf8(bytes);
  if (format === 'sniff') {
    if (text === null) return { format: 'binary', ...base, ...sizes };
    const start = text.trimStart()[0];
    format = start === '{' || start === '[' ? 'json' : start === '<' ? 'xml' : 'text';
    if (format === 'json' && !isJson(text)) format = 'text';
    if (format === 'xml' && XMLValidator.validate(text) !== true) format = 'text';
  }
  if (text === null) throw new IngestError('encoding_mismatch', `body is not valid UTF-8 text although Content-Type is ${contentType}${contentEncoding ? '' : ' and no Content-Encoding is declared'}`);
  switch (format) {
    case 'json': {
      // Checked before parsing: the redactor and JSON.stringify below recurse.
      if (jsonNestingExceeds(text)) throw tooDeep('body');
      let value: unknown;
      try {
        value = JSON.parse(quoteBarePans(text));
      } catch {
        throw new IngestError('encoding_mismatch', `body is not valid JSON although Content-Type is ${contentType}`);
      }
      return { format: 'json', ...base, ...sizes, text: JSON.stringify(redactor.value(value), null, 2) };
    }
    case 'xml': {
      const valid = XMLValidator.validate(text);
      if (valid !== true) throw new IngestError('encoding_mismatch', `body is not well-formed XML although Content-Type is ${contentType}: ${valid.err.msg}`);
      if (xmlNestingExceeds(text)) throw tooDeep('XML body');
      const value = redactor.value(new XMLParser(xmlOptions).parse(text));
      return { format: 'xml', ...base, ...sizes, text: new XMLBuilder({ ...xmlOptions, format: true, suppressEmptyNode: true }).build(value) };
    }
    case 'form': {
      const trimmed = text.trim();
      if (!FORM.test(trimmed) || /[\r\n]/.test(trimmed) || /%(?![0-9A-Fa-f]{2})/.test(trimmed) || /^\s*[{<[]/.test(trimmed)) {
        throw new IngestError('encoding_mismatch', `body is not form-urlencoded although Content-Type is ${contentType}`);
      }
      return { format: 'form', ...base, ...sizes, text: redactor.query(trimmed) };
    }
    default:
      return { format: 'text', ...base, ...sizes, text: redactor.text(text) };
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Decodes and redacts one event; size and semantic checks that need the bytes happen here. */
export function ingestEvent(event: DryRunEvent, redactor: Redactor): StoredEvent {
  if (base64DecodedLength(event.headers) > DRY_RUN_LIMITS.headersDecodedBytes) {
    throw new IngestError('too_large', `headers decode to more than ${DRY_RUN_LIMITS.headersDecodedBytes} bytes`);
  }
  const headerText = strictUtf8(base64Bytes(event.headers));
  const parsed = headerText === null ? null : parseHeaders(headerText);
  if (!parsed) throw new IngestError('semantic', 'headers must decode to a JSON object of header name -> value or to a raw HTTP header block');
  const body = ingestBody(event.body, parsed.entries, redactor);
  return {
    type: event.type,
    http_method: event.http_method,
    operation_type: event.operation_type,
    base_url: event.base_url ?? null,
    endpoint: event.endpoint === undefined ? null : redactor.endpoint(event.endpoint),
    http_status_code: event.http_status_code ?? null,
    headers_format: parsed.format,
    headers: redactor.headers(parsed.entries),
    body,
  };
}

export type IngestResult =
  | { ok: true; events: StoredEvent[] }
  | { ok: false; reason: IngestError['reason']; message: string };

/** Ingests every event; the first failure names its event index. Serialisable either way. */
export function ingestEvents(events: DryRunEvent[], redactor: Redactor, prefix = 'events'): IngestResult {
  const stored: StoredEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    try {
      stored.push(ingestEvent(events[i], redactor));
    } catch (error) {
      if (!(error instanceof IngestError)) throw error;
      return { ok: false, reason: error.reason, message: `${prefix}.${i}: ${error.message}` };
    }
  }
  return { ok: true, events: stored };
}
