/**
 * The /docs page: Swagger UI (served from the swagger-ui-dist package, no CDN) over
 * /v1/openapi.json, preceded by the tables the generated document cannot express well.
 */
import { DRY_RUN_ERROR_CODES } from '../domain/dry-run/errors';
import { ERROR_CODES, errorAnchor, errorAreaAnchor } from '../domain/error-catalogue';
import { CREDENTIAL_CODES, type ErrorArea } from './errors';

/** The error body of each area (the spec's Errors table), every one with doc_url. */
const AREA_SHAPES: Record<ErrorArea, { where: string; shape: string }> = {
  default: { where: 'payments, customers, routing, webhooks, recipients, transfers, subscriptions, banking accounts, balances and everything not listed below', shape: '{code, message, errors?: [{field, code, message, expected?}], details?, request_id, doc_url}' },
  'dry-run': { where: '/v1/dry-run/*', shape: '{code, messages: [string], httpCode, doc_url}' },
  banking: { where: 'banking transfers', shape: '{code, messages: [string], http_code, doc_url}' },
  enrollment: { where: 'payment methods to enroll', shape: '{code, messages: [string], doc_url}' },
  reports: { where: 'reports and report download', shape: '{code, messages: [string], doc_url}' },
  whitelabel: { where: 'organization administration (users, authenticate, account groups)', shape: '{code, message, doc_url}' },
  sellers: { where: 'sellers', shape: '{code, message, doc_url}' },
  campaigns: { where: '/v1/campaigns, /v1/rules', shape: '{code: <HTTP status>, message, details: {error_code, errors?: [{field, code, message, expected?}]}, doc_url}' },
  refunds: { where: 'unreferenced refunds (application/problem+json)', shape: '{type, code, title, status, detail, trace_id, errors: [{field, code, message, expected?}], doc_url}' },
};

function errorSections(): string {
  const areas = (Object.keys(AREA_SHAPES) as ErrorArea[])
    .map((area) => `<tr id="${errorAreaAnchor(area)}"><td><code>${area}</code></td><td>${escapeHtml(AREA_SHAPES[area].where)}</td><td><code>${escapeHtml(AREA_SHAPES[area].shape)}</code></td><td><code>${CREDENTIAL_CODES[area].missing}</code> / <code>${CREDENTIAL_CODES[area].invalid}</code></td></tr>`)
    .join('\n');
  const codes = ERROR_CODES.map(
    (e) => `<tr id="${errorAnchor(e.code)}"><td><a href="#${errorAnchor(e.code)}"><code>${e.code}</code></a></td><td>${e.statuses.join(', ')}</td><td>${escapeHtml(e.meaning)}</td><td>${escapeHtml(e.fix)}</td></tr>`,
  ).join('\n');
  return `<h2 id="errors">Errors</h2>
<p>Every error body keeps the shape of its area (the contract's Errors table) and carries <code>doc_url</code>, a link to the
section of this page for its code. Field errors name the field path (<code>field</code>, dot-separated:
<code>payment_method.detail.card.number</code>, <code>events.0.type</code>) and what was expected (<code>expected</code>).</p>
<table><thead><tr><th>area</th><th>operations</th><th>body</th><th>401 codes (missing / invalid)</th></tr></thead><tbody>
${areas}
</tbody></table>
<table><thead><tr><th>code</th><th>status</th><th>meaning</th><th>what to do</th></tr></thead><tbody>
${codes}
</tbody></table>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderDocsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Switchyard API</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0;font-family:system-ui,sans-serif} .intro{max-width:1400px;margin:0 auto;padding:16px 20px}
table{border-collapse:collapse;margin:8px 0 16px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}</style>
</head>
<body>
<div class="intro">
<h1>Switchyard API</h1>
<p>Authenticate every call with the <code>public-api-key</code> and <code>private-secret-key</code> headers
(case-insensitive; the dry-run registration accepts either one; campaigns also accept <code>X-Public-Api-Key</code> /
<code>X-Private-Secret-Key</code>). Every response carries <code>X-Request-Id</code>. The webhook event listing
(<code>GET /v1/webhook-events</code>, what <code>switchyard listen</code> follows) takes the key pair only: its events are signed
with the account's webhook secret.</p>
<h2 id="idempotency">Idempotency</h2>
<p>Send <code>X-Idempotency-Key</code> where an operation documents it. The first answer is kept for 24 hours per
organization and replayed (header <code>Idempotent-Replayed: true</code>) for the same key. A concurrent request with
a key whose first request is still running gets <code>400 REQUEST_IN_PROCESS</code>. Answers 400 and 5xx are not
kept, so a corrected request may reuse the key. A different payload under a used key replays the first answer,
except on the dry-run registration, which answers <code>409 TRAFFIC_LOG_IDEMPOTENCY_REPLAY</code>.</p>
${errorSections()}
<h2 id="dry-run-errors">Dry-run error codes</h2>
<p>Errors of <code>/v1/dry-run/*</code> have the body <code>{code, messages, httpCode}</code>. Each code, its status and what triggers it:</p>
<table><thead><tr><th>code</th><th>status</th><th>trigger</th></tr></thead><tbody>
${DRY_RUN_ERROR_CODES.map((e) => `<tr><td><code>${e.code}</code></td><td>${e.status}</td><td>${escapeHtml(e.trigger)}</td></tr>`).join('\n')}
</tbody></table>
<p>The dry-run dashboard is at <a href="/dashboard/dry-run">/dashboard/dry-run</a>.</p>
<h2 id="rate-limits">Rate limits</h2>
<p>Requests are counted per credential in fixed windows shared by all API instances; past the limit the answer is
<code>429</code> with <code>Retry-After</code> (seconds), and every answer carries <code>X-RateLimit-Limit</code> and
<code>X-RateLimit-Remaining</code>.</p>
</div>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true });</script>
</body>
</html>`;
}
