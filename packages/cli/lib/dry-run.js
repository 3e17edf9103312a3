'use strict';
/**
 * `switchyard dry-run check --traffic FILE --payment FILE [options]`
 *
 * Registers captured provider traffic (Switchyard's JSON format or a HAR 1.2 file) and the
 * service payment request (sent with `Dry-run: true`) against a running Switchyard, waits
 * for the validation report, prints a summary, optionally writes JUnit XML, and exits
 * non-zero when the verdict reaches --fail-on.
 *
 * Exit codes: 0 verdict below the threshold; 1 verdict at or above it; 2 usage or input
 * error; 3 Switchyard refused a call, or no report within --timeout.
 */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { EXIT, CliError, resolveConfig, api, sleep } = require('./common');

const USAGE = `Usage: switchyard dry-run check --traffic FILE --payment FILE [options]

  --traffic FILE        provider traffic: Switchyard JSON ({events: [...]}) or a HAR 1.2 file
  --payment FILE        the payment request (POST /v1/payments body) sent with Dry-run: true
  --account-id ID       the payment's account_id (env SWITCHYARD_ACCOUNT_ID), so one request
                        file serves every environment; default: account_id in the file
  --url URL             Switchyard base URL (env SWITCHYARD_URL, default http://127.0.0.1:3000)
  --public-key KEY      env SWITCHYARD_PUBLIC_KEY
  --secret-key KEY      env SWITCHYARD_SECRET_KEY
  --provider ID         provider_id (default: from the traffic file)
  --reference REF       merchant_reference pairing both legs (default: <merchant_order_id>-<run id>)
  --operation TYPE      operation_type of HAR events (default PURCHASE, AUTHORIZE when capture is false)
  --webhook-match RE    HAR entries whose URL matches RE are provider WEBHOOKs
  --fail-on LEVEL       warn | fail (default fail): exit 1 when the verdict reaches it
  --junit FILE          write a JUnit XML report
  --timeout SECONDS     wait at most this long for the report (default 120)
`;

function readJson(file, what) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${file}: ${error.message}`, EXIT.usage);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} ${file} is not JSON: ${error.message}`, EXIT.usage);
  }
}

const b64 = (value) => Buffer.from(value).toString('base64');

/** Headers as given in our JSON format: an object, a raw header block, or already base64. */
function encodeHeaders(headers) {
  if (headers === undefined || headers === null) return b64('{}');
  if (typeof headers === 'object') return b64(JSON.stringify(headers));
  return b64(String(headers));
}

function encodeBody(event) {
  if (event.body_base64 !== undefined) return event.body_base64;
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return b64(typeof event.body === 'string' ? event.body : JSON.stringify(event.body));
}

/** Our JSON format: events with readable headers and bodies, encoded here. */
function fromSwitchyardJson(doc) {
  if (!Array.isArray(doc.events)) throw new CliError('the traffic file has no events array (expected Switchyard JSON or HAR 1.2)', EXIT.usage);
  return {
    merchant_reference: doc.merchant_reference,
    provider_id: doc.provider_id,
    payment_method_type: doc.payment_method_type,
    events: doc.events.map((e) => {
      const out = { type: e.type, http_method: e.http_method, operation_type: e.operation_type, headers: e.headers_base64 ?? encodeHeaders(e.headers) };
      if (e.base_url !== undefined) out.base_url = e.base_url;
      if (e.endpoint !== undefined) out.endpoint = e.endpoint;
      if (e.http_status_code !== undefined) out.http_status_code = e.http_status_code;
      const body = encodeBody(e);
      if (body !== undefined) out.body = body;
      return out;
    }),
  };
}

/** HAR content/postData -> base64 body, and the headers without a Content-Encoding that HAR already undid. */
function harBody(content, headers) {
  if (!content || content.text === undefined || content.text === '') return { headers };
  if (content.encoding === 'base64') return { body: content.text, headers };
  const stripped = headers.filter((h) => h.name.toLowerCase() !== 'content-encoding' && h.name.toLowerCase() !== 'content-length');
  return { body: b64(content.text), headers: stripped };
}

function harHeaders(list) {
  return (list || []).filter((h) => !h.name.startsWith(':')).map((h) => `${h.name}: ${h.value}`).join('\r\n');
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

function fromHar(doc, options) {
  const entries = doc.log.entries || [];
  const webhook = options.webhookMatch ? new RegExp(options.webhookMatch) : null;
  const events = [];
  for (const entry of entries) {
    const method = String(entry.request.method || '').toUpperCase();
    if (!METHODS.has(method)) continue;
    const url = new URL(entry.request.url);
    const operation = entry._operation_type || options.operation;
    const isWebhook = entry._switchyard_leg === 'WEBHOOK' || (webhook && webhook.test(entry.request.url));
    const request = harBody(entry.request.postData && { text: entry.request.postData.text, encoding: entry.request.postData.encoding }, entry.request.headers || []);
    const base = { http_method: method, operation_type: operation, base_url: url.origin, endpoint: `${url.pathname}${url.search}` };
    if (isWebhook) {
      events.push({ type: 'WEBHOOK', ...base, http_status_code: entry.response && entry.response.status > 0 ? entry.response.status : 200, headers: b64(harHeaders(request.headers)), ...(request.body ? { body: request.body } : {}) });
      continue;
    }
    events.push({ type: 'REQUEST', ...base, headers: b64(harHeaders(request.headers)), ...(request.body ? { body: request.body } : {}) });
    if (entry.response && entry.response.status > 0) {
      const response = harBody(entry.response.content, entry.response.headers || []);
      events.push({ type: 'RESPONSE', http_method: method, operation_type: operation, http_status_code: entry.response.status, headers: b64(harHeaders(response.headers)), ...(response.body ? { body: response.body } : {}) });
    }
  }
  if (!events.length) throw new CliError('the HAR file has no GET/POST/PUT/PATCH/DELETE entries', EXIT.usage);
  return { events };
}


/** A spinner on a terminal, dots otherwise (CI logs); always on stderr. */
function progress() {
  const tty = process.stderr.isTTY;
  const frames = ['|', '/', '-', '\\'];
  let i = 0;
  let last = '';
  return {
    tick(status, seconds) {
      if (tty) process.stderr.write(`\r${frames[i++ % frames.length]} waiting for the report: ${status} (${seconds}s) `);
      else if (status !== last || i++ % 10 === 0) process.stderr.write(status !== last ? `\n${status} .` : '.');
      last = status;
    },
    done() {
      process.stderr.write(tty ? '\r\x1b[K' : '\n');
    },
  };
}

function xml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const RANK = { PASS: 0, WARN: 1, FAIL: 2 };
const SEVERITY_FAILS = { warn: new Set(['ERROR', 'WARNING']), fail: new Set(['ERROR']) };

function junit(registration, failOn, seconds) {
  const report = registration.report;
  const findings = report.findings;
  const failing = SEVERITY_FAILS[failOn];
  const cases = [
    `    <testcase classname="switchyard.dry-run" name="verdict ${xml(report.verdict)} (score ${report.score})" time="${seconds}">${RANK[report.verdict] >= RANK[failOn.toUpperCase()] ? `<failure message="verdict ${xml(report.verdict)}" type="verdict">score ${report.score}</failure>` : ''}</testcase>`,
    ...findings.map((f) => {
      const where = `service ${f.service_path || '-'}; provider ${f.provider ? `${f.provider.leg}#${f.provider.event_index} ${f.provider.path}` : '-'}`;
      const detail = `${f.message}\n${where}\nexpected: ${JSON.stringify(f.expected)}\nactual: ${JSON.stringify(f.actual)}\nfix: ${f.suggested_fix}`;
      const body = failing.has(f.severity) ? `<failure message="${xml(f.message)}" type="${xml(f.code)}">${xml(detail)}</failure>` : `<system-out>${xml(detail)}</system-out>`;
      return `    <testcase classname="switchyard.dry-run.${xml(f.category)}" name="${xml(`${f.id} ${f.severity} ${f.code}`)}" time="0">${body}</testcase>`;
    }),
  ];
  const failures = (RANK[report.verdict] >= RANK[failOn.toUpperCase()] ? 1 : 0) + findings.filter((f) => failing.has(f.severity)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="switchyard dry-run ${xml(registration.merchant_reference)}" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

function summary(registration, seconds) {
  const r = registration.report;
  const lines = [
    `Switchyard dry-run ${registration.id}  ${registration.merchant_reference}`,
    `  verdict ${r.verdict}  score ${r.score}/100  (${r.summary.errors} errors, ${r.summary.warnings} warnings, ${r.summary.infos} notes; ${r.mode}${r.profile_id ? ` profile ${r.profile_id}` : ''}; ${seconds}s)`,
  ];
  for (const f of r.findings) {
    lines.push(`  ${f.severity.padEnd(7)} ${f.code}: ${f.message}`);
    lines.push(`          service ${f.service_path || '-'} | provider ${f.provider ? `${f.provider.leg}#${f.provider.event_index} ${f.provider.path}` : '-'}`);
    lines.push(`          fix: ${f.suggested_fix}`);
  }
  if (!r.findings.length) lines.push('  no findings');
  return `${lines.join('\n')}\n`;
}

async function check(options) {
  if (options.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (!options.traffic || !options.payment) throw new CliError(`--traffic and --payment are required\n\n${USAGE}`, EXIT.usage);
  resolveConfig(options);
  const failOn = (options.failOn || 'fail').toLowerCase();
  if (!SEVERITY_FAILS[failOn]) throw new CliError('--fail-on must be warn or fail', EXIT.usage);
  const timeoutMs = Number(options.timeout || 120) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new CliError('--timeout must be a number of seconds', EXIT.usage);

  const payment = readJson(options.payment, 'payment request');
  const accountId = options.accountId || process.env.SWITCHYARD_ACCOUNT_ID;
  if (accountId) payment.account_id = accountId;
  if (!payment.account_id) throw new CliError(`the payment request has no account_id: pass --account-id or set SWITCHYARD_ACCOUNT_ID`, EXIT.usage);
  options.operation = options.operation || (payment.capture === false ? 'AUTHORIZE' : 'PURCHASE');
  const trafficDoc = readJson(options.traffic, 'traffic file');
  const traffic = trafficDoc && trafficDoc.log && Array.isArray(trafficDoc.log.entries) ? fromHar(trafficDoc, options) : fromSwitchyardJson(trafficDoc);
  const base = options.reference || `${traffic.merchant_reference || payment.merchant_order_id || 'dry-run'}-${Date.now().toString(36)}${crypto.randomBytes(3).toString('hex')}`;
  const reference = base.slice(0, 255);

  const started = Date.now();
  const registration = await api(options, 'POST', '/v1/dry-run/provider-events', { body: {
    merchant_reference: reference,
    events: traffic.events,
    ...(options.provider || traffic.provider_id ? { provider_id: options.provider || traffic.provider_id } : {}),
    ...(traffic.payment_method_type !== undefined ? { payment_method_type: traffic.payment_method_type } : {}),
    ...(payment.account_id ? { account_id: payment.account_id } : {}),
  } });
  process.stderr.write(`registered ${registration.id} (${traffic.events.length} provider events, merchant_reference ${reference})\n`);
  await api(options, 'POST', '/v1/payments', { params: { header: { 'Dry-run': 'true' } }, body: { ...payment, merchant_reference: reference } });

  const bar = progress();
  let current;
  for (;;) {
    current = await api(options, 'GET', '/v1/dry-run/provider-events/{registration_id}', { params: { path: { registration_id: registration.id } } });
    const seconds = Math.round((Date.now() - started) / 1000);
    if (current.status === 'VALIDATED' && current.report) break;
    if (current.status === 'UNMATCHED') {
      bar.done();
      throw new CliError(`registration ${registration.id} is UNMATCHED: the dry-run payment did not pair`, EXIT.api);
    }
    if (Date.now() - started > timeoutMs) {
      bar.done();
      throw new CliError(`no report within ${timeoutMs / 1000}s (status ${current.status})`, EXIT.api);
    }
    bar.tick(current.status, seconds);
    await sleep(500);
  }
  bar.done();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(summary(current, seconds));
  if (options.junit) {
    fs.mkdirSync(path.dirname(path.resolve(options.junit)), { recursive: true });
    fs.writeFileSync(options.junit, junit(current, failOn, seconds));
    process.stderr.write(`JUnit report written to ${options.junit}\n`);
  }
  return RANK[current.report.verdict] >= RANK[failOn.toUpperCase()] ? EXIT.verdict : EXIT.ok;
}

module.exports = { check, fromHar, fromSwitchyardJson, junit, USAGE };
