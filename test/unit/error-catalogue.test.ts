/**
 * Every code an error can carry has a section on the docs page: the codes named in
 * `new ApiError(...)` calls across the source, the per-area defaults, and the dry-run table.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as t from 'io-ts';
import { codeFor, CREDENTIAL_CODES, docUrlFor, renderError, type ErrorArea } from '../../api/errors';
import { renderDocsPage } from '../../api/docs-page';
import { ERROR_CODES, errorAnchor, errorCodeDoc } from '../../domain/error-catalogue';
import { ApiError, decodeOrThrow, ErrorKind, STATUS_OF_KIND } from '../../domain/errors';
import { DRY_RUN_ERROR_CODES } from '../../domain/dry-run/errors';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const AREAS = Object.keys(CREDENTIAL_CODES) as ErrorArea[];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The top-level `code: '...'` of each `new ApiError(...)` call (field error codes left out). */
function codesRaisedInSource(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of ['api', 'domain', 'activities'].flatMap((d) => sourceFiles(path.join(ROOT, d)))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/new ApiError\(/g)) {
      let depth = 1;
      let i = match.index! + match[0].length;
      while (depth && i < text.length) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')') depth--;
        i++;
      }
      const call = text.slice(match.index!, i).replace(/fieldErrors: \[[\s\S]*?\]/g, '');
      for (const code of call.matchAll(/(?<![a-z_])code: '([A-Za-z_]+)'/g)) found.set(code[1], path.relative(ROOT, file));
    }
    // Campaigns raise 422s through a helper taking the code as its second argument.
    for (const code of text.matchAll(/unprocessable\([^;]*?, '([A-Z_]+)'/g)) found.set(code[1], path.relative(ROOT, file));
  }
  return found;
}

describe('error catalogue (unit)', () => {
  it('lists every code the source raises, every area default and every dry-run code', () => {
    const missing: string[] = [];
    for (const [code, file] of codesRaisedInSource()) if (!errorCodeDoc(code)) missing.push(`${code} (${file})`);
    for (const area of AREAS) {
      for (const kind of Object.keys(STATUS_OF_KIND) as ErrorKind[]) {
        const code = codeFor(area, new ApiError(kind, 'x'));
        if (!errorCodeDoc(code)) missing.push(`${code} (default of ${kind} in ${area})`);
      }
    }
    for (const e of DRY_RUN_ERROR_CODES) if (!errorCodeDoc(e.code)) missing.push(`${e.code} (dry-run table)`);
    assert.deepEqual([...new Set(missing)], []);
    assert.ok(codesRaisedInSource().size > 30, 'the scan finds the codes');
  });

  it('the docs page has an anchor for every code and area, and doc_url points at them', () => {
    const html = renderDocsPage();
    for (const e of ERROR_CODES) assert.ok(html.includes(`id="${errorAnchor(e.code)}"`), e.code);
    for (const area of AREAS) assert.ok(html.includes(`id="errors-area-${area}"`), area);
    assert.equal(new Set(ERROR_CODES.map((e) => e.code)).size, ERROR_CODES.length, 'codes are unique');
    assert.equal(docUrlFor('https://api.example', 'default', 'PAYMENT_NOT_FOUND'), 'https://api.example/docs#errors-payment-not-found');
    assert.equal(docUrlFor('https://api.example', 'dry-run', 'AuthenticationFail'), 'https://api.example/docs#errors-authenticationfail');
    assert.equal(docUrlFor('https://api.example', 'campaigns', 'SOMETHING_NEW'), 'https://api.example/docs#errors-area-campaigns');
  });

  it('every area keeps its shape and adds doc_url; field errors say what was expected', () => {
    const codec = t.type({ account_id: t.string, amount: t.type({ value: t.number }) });
    let error: ApiError | undefined;
    try {
      decodeOrThrow(codec, { amount: { value: 'ten' } });
    } catch (e) {
      error = e as ApiError;
    }
    assert.ok(error);
    assert.deepEqual(error.fieldErrors.map((f) => [f.field, f.code, typeof f.expected]), [['account_id', 'REQUIRED', 'string'], ['amount.value', 'INVALID', 'string']]);
    for (const area of AREAS) {
      const body = renderError(area, error, 'req-1', 'http://sw.example');
      assert.equal(body.doc_url, area === 'dry-run' ? 'http://sw.example/docs#errors-traffic-log-validation-failed' : area === 'enrollment' || area === 'reports' ? 'http://sw.example/docs#errors-invalid-request' : area === 'whitelabel' ? 'http://sw.example/docs#errors-invalid-parameters' : 'http://sw.example/docs#errors-validation-error', area);
      const { doc_url: _docUrl, ...rest } = body;
      assert.deepEqual(rest, renderError(area, error, 'req-1'), `${area}: the area's own shape is unchanged`);
    }
  });
});
