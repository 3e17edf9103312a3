/**
 * Nesting limits for untrusted JSON and XML. JSON.parse itself copes with any depth, but
 * everything that walks the result afterwards (redaction, canonical JSON for idempotency,
 * JSON.stringify, io-ts, the XML builder) recurses, so 10,000 nested arrays overflow the
 * stack. The text is measured before it is parsed: one linear scan, no allocation.
 */

/** Deepest nesting of objects/arrays (JSON) or elements (XML) accepted from a caller. */
export const MAX_NESTING_DEPTH = 64;

/**
 * True when `text` nests objects and arrays deeper than `limit`. Brackets inside strings do
 * not count. Meant for text about to be parsed; on malformed JSON the answer only has to
 * be safe, the parser reports the syntax error.
 */
export function jsonNestingExceeds(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Jump to the closing quote: an odd run of backslashes before a quote escapes it.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return false;
        let backslashes = 0;
        for (let j = end - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
        i = end;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/**
 * True when well-formed XML nests elements deeper than `limit`. Comments, CDATA sections,
 * processing instructions and the DOCTYPE (with its internal subset) are skipped; quoted
 * attribute values may contain `>`.
 */
export function xmlNestingExceeds(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length) {
    if (text.startsWith('<!--', i)) i = after(text, '-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) i = after(text, ']]>', i + 9);
    else if (text.startsWith('<?', i)) i = after(text, '?>', i + 2);
    else if (text.startsWith('<!', i)) {
      const close = text.indexOf('>', i);
      const subset = text.indexOf('[', i);
      i = subset >= 0 && (close < 0 || subset < close) ? after(text, '>', after(text, ']', subset)) : after(text, '>', i);
    } else if (text.startsWith('</', i)) {
      depth--;
      i = after(text, '>', i + 2);
    } else {
      // Start tag: find its end outside quoted attribute values.
      let j = i + 1;
      let quote = 0;
      for (; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e /* > */) break;
      }
      if (text.charCodeAt(j - 1) !== 0x2f /* / */ && ++depth > limit) return true;
      i = j + 1;
    }
    if (i < 0) return false;
    i = text.indexOf('<', i);
  }
  return false;
}

function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  return at < 0 ? -1 : at + token.length;
}

/**
 * The first `__proto__` key (or `prototype` under `constructor`) in a parsed JSON value, with
 * its dotted path, or null. JSON.parse keeps such a key as an own property, but code that
 * copies objects by assignment turns it into a prototype, so the API refuses it. Recursive:
 * call it only on values whose depth was checked.
 */
export function prototypeKey(value: unknown, path: string[] = []): { key: string; path: string } | null {
  if (value === null || typeof value !== 'object') return null;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    path.push(key);
    if (!Array.isArray(value) && key === '__proto__') return { key, path: path.join('.') };
    if (!Array.isArray(value) && key === 'constructor' && child !== null && typeof child === 'object' && Object.prototype.hasOwnProperty.call(child, 'prototype')) {
      return { key: 'constructor.prototype', path: `${path.join('.')}.prototype` };
    }
    const found = prototypeKey(child, path);
    if (found) return found;
    path.pop();
  }
  return null;
}

/**
 * Text no store keeps as sent: U+0000 (PostgreSQL's jsonb and MongoDB keys refuse it) and
 * lone UTF-16 surrogates (written to UTF-8 as U+FFFD, so the stored value would differ from
 * the accepted one). Neither has a use in a payment request.
 */
export function hasUnstorableText(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

/**
 * In a JSON text (already UTF-8, so surrogates and NUL can only arrive as `\u` escapes),
 * whether a parsed value may carry unstorable text: the cheap test before walking it.
 */
export function jsonMayCarryUnstorableText(text: string): boolean {
  return /\\u(?:0000|[dD][89a-fA-F])/.test(text);
}

/** The path of the first key or string in `value` holding unstorable text, if any. */
export function unstorableTextPath(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return hasUnstorableText(value) ? path.join('.') : null;
  if (value === null || typeof value !== 'object') return null;
  const isArray = Array.isArray(value);
  const entries: Array<[string, unknown]> = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    path.push(key);
    if (!isArray && hasUnstorableText(key)) return path.join('.');
    const found = unstorableTextPath(child, path);
    if (found !== null) return found;
    path.pop();
  }
  return null;
}
