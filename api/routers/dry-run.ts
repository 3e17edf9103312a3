/**
 * Dry-run validation (spec, "Dry-run"): registration of provider traffic, late events, the
 * read and list endpoints, and the companion leg `POST /v1/payments` with `Dry-run: true`
 * (handleDryRunPayment, called by the payments router).
 *
 * The API decodes, checks and redacts (off the event loop for large bodies), inserts the
 * registration (the resource's creation) with the signal it owes the pairing workflow, which
 * is delivered after the answer (../dry-run/pairing-signals.ts; the companion leg signals
 * directly); every later state change happens in that workflow's activities.
 */
import { findByIdWithin } from '../../activities/runtime/mongo';
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { nanoid } from 'nanoid';
import type { Db } from 'mongodb';
import { findOwnedAccount, soleAccountId } from '../../activities/repositories/merchants';
import {
  dryRunPayments, DryRunPaymentDoc, eventBatches, PairingSignalDoc, findRegistration, pairingWorkflowId, pointToLatestDryRunPayment, referenceClaims, referenceKey, RegistrationDoc, registrationByReference, registrations,
} from '../../activities/repositories/dry-run';
import { toRecord } from '../../activities/repositories/payments';
import { readCredentialHeaders } from '../middleware/auth';
import { canonicalJson } from '../middleware/idempotency';
import { keyedHash } from '../../domain/crypto';
import { newId } from '../../domain/credentials';
import { ApiError } from '../../domain/errors';
import { DRY_RUN_LIMITS, DryRunEventsRequest, DryRunRegistrationRequest, DryRunRegistrationResponse, REGISTRATION_STATUSES, VERDICTS } from '../../domain/dry-run/codecs';
import type { StoredEvent } from '../../domain/dry-run/decode';
import { dryRunError, errorTableMarkdown, ingestFailure } from '../../domain/dry-run/errors';
import { organizationRedactor } from '../../domain/dry-run/redact';
import { decodeEventsRequest, decodeRegistration } from '../../domain/dry-run/rules';
import { DryRunPayment, dryRunPaymentView, pairingReference, renderDryRunPayment, serviceViewOfPayment } from '../../domain/dry-run/service-leg';
import { isInlineCard, Payment, PaymentCreateRequest } from '../../domain/payments/codecs';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';
import { IngestPool } from '../dry-run/ingest-pool';
import { PairingSignalPump, signalPairing } from '../dry-run/pairing-signals';
import { renderDryRunDashboard } from '../dry-run/dashboard';

/** 21-character nano id (URL-safe alphabet). */
export const newRegistrationId = (): string => nanoid(21);

const IDEMPOTENCY = { required: false, format: 'max64', onDifferentPayload: 'conflict' } as const;
const ID_PARAM = { name: 'registration_id', description: '21-character id returned by the registration', schema: { type: 'string', minLength: 21, maxLength: 21 } };

// ------------------------------------------------------------------ read models

const nullableString = t.union([t.string, t.null]);
const HeaderEntryView = t.type({ name: t.string, value: t.string });
const StoredEventView = t.type(
  {
    type: t.string, http_method: t.string, operation_type: t.string, base_url: nullableString, endpoint: nullableString, http_status_code: t.union([t.number, t.null]),
    headers_format: t.string, headers: t.array(HeaderEntryView),
    body: t.intersection([t.type({ format: t.string, content_type: nullableString, content_encoding: nullableString, encoded_bytes: t.number, decoded_bytes: t.number }), t.partial({ text: t.string })]),
  },
  'DryRunStoredEvent',
);
const ProviderLocationView = t.type({ leg: t.string, event_index: t.number, path: t.string });
const FindingView = t.type(
  {
    id: t.string, code: t.string, category: t.string, severity: t.string, message: t.string, service_path: nullableString,
    provider: t.union([ProviderLocationView, t.null]), expected: t.unknown, actual: t.unknown, suggested_fix: t.string,
  },
  'DryRunFinding',
);
const ReportView = t.type(
  {
    version: t.number, verdict: t.string, score: t.number, mode: t.string, profile_id: nullableString,
    summary: t.type({ errors: t.number, warnings: t.number, infos: t.number }),
    findings: t.array(FindingView),
    mapping: t.array(t.type({ concept: nullableString, service_path: nullableString, provider: ProviderLocationView, transform: t.string, source: t.string })),
    generated_at: t.string, duration_ms: t.number, service_source: t.string,
  },
  'DryRunReport',
);
const RegistrationSummary = t.type(
  {
    id: t.string, status: t.string, merchant_reference: t.string, account_id: t.string, payment_id: nullableString, provider_id: nullableString,
    payment_method_type: nullableString, operation_type: nullableString, verdict: nullableString, score: t.union([t.number, t.null]),
    event_count: t.number, created_at: t.string, updated_at: t.string,
  },
  'DryRunRegistrationSummary',
);
export const DryRunRegistrationView = t.intersection(
  [
    RegistrationSummary,
    t.type({
      pairing: t.type({ status: t.string, service_leg_id: nullableString, paired_at: nullableString, unmatched_at: nullableString, workflow_id: t.string }),
      events: t.array(StoredEventView),
      service_request: t.union([t.UnknownRecord, t.null]),
      report: t.union([ReportView, t.null]),
    }),
  ],
  'DryRunRegistration',
);
const RegistrationList = t.type({ data: t.array(RegistrationSummary), next_cursor: nullableString }, 'DryRunRegistrationList');

function iso(date: Date | null | undefined): string | null {
  return date ? new Date(date).toISOString() : null;
}

function summaryOf(doc: RegistrationDoc): t.TypeOf<typeof RegistrationSummary> {
  return {
    id: doc._id, status: doc.status, merchant_reference: doc.merchant_reference, account_id: doc.account_id, payment_id: doc.payment_id,
    provider_id: doc.provider_id, payment_method_type: doc.payment_method_type, operation_type: doc.operation_type,
    verdict: doc.verdict, score: doc.score, event_count: doc.events.length, created_at: iso(doc.created_at)!, updated_at: iso(doc.updated_at)!,
  };
}

async function serviceRequestOf(db: Db, doc: RegistrationDoc): Promise<Record<string, unknown> | null> {
  if (!doc.dry_run_payment_id) return null;
  const dryRun = await findByIdWithin(dryRunPayments(db), doc.dry_run_payment_id, { organization_code: doc.organization_code });
  if (dryRun) return dryRun.request;
  const payment = await findByIdWithin(db.collection('payments'), doc.dry_run_payment_id as never, { organization_code: doc.organization_code });
  return payment ? serviceViewOfPayment(toRecord(payment as never)) : null;
}

async function viewOf(db: Db, doc: RegistrationDoc): Promise<t.TypeOf<typeof DryRunRegistrationView>> {
  const report = doc.report
    ? (({ input_fingerprint: _f, ...rest }) => ({ ...rest, generated_at: iso(rest.generated_at)! }))(doc.report)
    : null;
  return {
    ...summaryOf(doc),
    pairing: {
      status: doc.status === 'REGISTERED' ? 'WAITING_FOR_DRY_RUN_PAYMENT' : doc.status === 'UNMATCHED' ? 'UNMATCHED' : 'PAIRED',
      service_leg_id: doc.dry_run_payment_id, paired_at: iso(doc.paired_at), unmatched_at: iso(doc.unmatched_at), workflow_id: doc.workflow_id,
    },
    events: doc.events,
    service_request: await serviceRequestOf(db, doc),
    report,
  };
}

// ------------------------------------------------------------------ cursor pagination

function encodeCursor(doc: RegistrationDoc): string {
  return Buffer.from(JSON.stringify({ t: doc.created_at.toISOString(), id: doc._id })).toString('base64url');
}

function decodeCursor(cursor: string): { t: Date; id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: string; id: string };
    const date = new Date(parsed.t);
    if (typeof parsed.id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad cursor');
    return { t: date, id: parsed.id };
  } catch {
    throw invalidQuery('cursor', 'cursor is not a value returned as next_cursor');
  }
}

function invalidQuery(field: string, message: string): ApiError {
  return new ApiError('validation', message, { code: 'TRAFFIC_LOG_VALIDATION_FAILED', fieldErrors: [{ field, code: 'INVALID', message }] });
}

function queryString(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  if (Array.isArray(raw)) throw invalidQuery(name, `${name} may be given once`);
  return raw === undefined || raw === '' ? undefined : raw;
}

function queryDate(ctx: AppContext, name: string): Date | undefined {
  const raw = queryString(ctx, name);
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) throw invalidQuery(name, `${name} must be an ISO 8601 timestamp`);
  return date;
}

// ------------------------------------------------------------------ ingest

function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

async function ingestOrThrow(pool: IngestPool, events: DryRunRegistrationRequest['events'], organizationCode: string, prefix: string): Promise<StoredEvent[]> {
  const result = await pool.ingest(events, organizationCode, prefix);
  if (!result.ok) throw ingestFailure(result.reason, result.message);
  return result.events;
}

// ------------------------------------------------------------------ companion leg

/**
 * POST /v1/payments with `Dry-run: true`: the body was decoded with the payment codec and
 * passed its cross-field checks; here it is redacted, stored and paired, never routed.
 */
export async function handleDryRunPayment(ctx: AppContext, deps: AppDeps, body: PaymentCreateRequest): Promise<void> {
  const organizationCode = ctx.state.principal!.organizationCode;
  const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
  if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
  const merchantReference = pairingReference(body);
  const redactor = organizationRedactor(deps.keyring, organizationCode);
  const redacted = redactor.value(body) as Record<string, unknown>;
  const id = newId();
  const createdAt = new Date();
  const workflowId = pairingWorkflowId(account._id, merchantReference);
  const card = body.payment_method.detail?.card;
  // Stored (and answered) redacted like the request: a card token in it becomes its placeholder.
  const view = redactor.value(dryRunPaymentView({
    paymentId: id, organizationCode, accountId: account._id, createdAt: createdAt.toISOString(), request: body,
    cardFingerprint: isInlineCard(card) ? keyedHash(deps.keyring, 'fingerprint', card.number, organizationCode) : null,
  })) as Payment;
  const doc: DryRunPaymentDoc = {
    _id: id, organization_code: organizationCode, account_id: account._id, merchant_reference: merchantReference, request: redacted, view,
    workflow_id: workflowId, pairing_status: 'WAITING_FOR_PROVIDER_EVENTS', registration_id: null, created_at: createdAt,
  };
  await dryRunPayments(deps.db).insertOne(doc);
  await pointToLatestDryRunPayment(deps.db, doc);
  const registration = await registrationByReference(deps.db, account._id, merchantReference);
  await signalPairing(deps, { organizationCode, accountId: account._id, merchantReference }, { kind: 'payment', id }, registration ? 'PAIRED' : 'WAITING_FOR_PROVIDER_EVENTS');
  ctx.status = 201;
  // The dry-run payment is read like any payment; its report is on the paired registration.
  ctx.set('Location', `/v1/payments/${id}`);
  ctx.body = renderDryRunPayment(view, { merchantReference, status: registration ? 'PAIRED' : 'WAITING_FOR_PROVIDER_EVENTS', registrationId: registration?._id ?? null });
}

/**
 * A stored dry-run payment as GET /v1/payments/{id} answers it. Documents stored before the
 * view was kept are rendered from their redacted request, without the card summary.
 */
export function renderStoredDryRunPayment(doc: DryRunPaymentDoc): DryRunPayment {
  const view = (doc.view as Payment | undefined) ?? storedRequestView(doc);
  return renderDryRunPayment(view, { merchantReference: doc.merchant_reference, status: doc.pairing_status, registrationId: doc.registration_id });
}

function storedRequestView(doc: DryRunPaymentDoc): Payment {
  const request = doc.request as unknown as PaymentCreateRequest;
  const { detail: _redactedCard, ...method } = request.payment_method;
  return dryRunPaymentView({
    paymentId: doc._id, organizationCode: doc.organization_code, accountId: doc.account_id, createdAt: new Date(doc.created_at).toISOString(),
    request: { ...request, payment_method: method }, cardFingerprint: null,
  });
}

/**
 * Reads the Dry-run header: absent or `false` routes for real, `true` (any letter case) is a
 * dry run; anything else (`1`, `yes`, an empty value...) is a 400, never a guess, because
 * guessing "not a dry run" moves real money. (Whitespace around a header value is not part of
 * it in HTTP, so ` true ` arrives as `true`.)
 */
export function isDryRunRequest(ctx: AppContext): boolean {
  const raw = ctx.headers['dry-run'];
  if (raw === undefined) return false;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  const message = 'Dry-run header must be true or false';
  throw new ApiError('validation', message, { fieldErrors: [{ field: 'Dry-run', code: 'INVALID', message }] });
}

export const DRY_RUN_HEADER = {
  name: 'Dry-run',
  description: 'Exactly `true` or `false` (any letter case); any other value, empty included, answers 400 and nothing is routed. `true`: validate with the same rules, store redacted and pair with the provider traffic registered under the same merchant_reference (POST /v1/dry-run/provider-events); never routed to a provider. The answer is the Payment with `dry_run: true`, status READY_TO_PAY / CREATED and `dry_run_pairing`; its id reads it with GET /v1/payments/{payment_id} (Location). Capture, cancel and refund answer 409.',
  schema: { type: 'string', enum: ['true', 'false'] },
};
export { DryRunPayment };

// ------------------------------------------------------------------ routes

const REGISTRATION_DOC = [
  'Registers the raw traffic exchanged with a payment provider (REQUEST, RESPONSE and WEBHOOK legs, headers and body base64-encoded).',
  'Send the equivalent payment to `POST /v1/payments` with the header `Dry-run: true` and the same merchant_reference (or merchant_order_id); the two legs pair by account + merchant_reference in either order, the validation pipeline grades the payment request against the provider exchange, and the report is read with `GET /v1/dry-run/provider-events/{id}` (a `dry_run.report_ready` webhook is sent too).',
  'When `payment_id` names an existing payment, that payment is correlated at once and graded when no dry-run payment is sent; `provider_id` / `payment_method_type` default to the payment\'s.',
  'Either key is enough, except with `payment_id`: referencing a payment requires the PRIVATE-SECRET-KEY header (alone or with the public key). With the public API key alone a request carrying payment_id answers 401 `NOT_AUTHENTICATED`, the same for an own, a foreign and an unknown payment, so the public key cannot be used to learn which payment ids exist.',
  'Headers decode as a JSON map or a raw HTTP header block; bodies per their Content-Encoding (gzip, deflate, br) and Content-Type (JSON, form-urlencoded, XML, text; other types are binary and are not stored); JSON and XML nesting deeper than 64 levels answers 400. PANs (kept as first 6 / last 4), credential headers, bearer tokens, JWTs and secret keys anywhere, every credential-like field (token and *_token, secret, password, passcode, api_key, authorization, cvc, cvv, cvv2, security_code, pin...) in JSON, XML elements and attributes, form bodies, query strings and key=value / key: value text, and security codes or PINs written in words (`cvc 8524`, `security code 1234`, `PIN 2468`) are replaced by placeholders that are deterministic per organization before anything is stored.',
  '`X-Idempotency-Key` (up to 64 characters): the same key and payload within 24 h returns the first 201; a different payload answers 409. merchant_reference is unique per account; add late provider webhooks with `POST /v1/dry-run/provider-events/{id}/events`.',
  'States: REGISTERED -> PAIRED -> VALIDATED; REGISTERED -> UNMATCHED when no dry-run payment arrives within DRY_RUN_PAIRING_TIMEOUT_SECONDS (a late one still pairs). New events or a new dry-run payment re-run the pipeline (report.version increases).',
  '',
  'Error codes (body `{code, messages, httpCode}`):',
  '',
  errorTableMarkdown(),
].join('\n');

export function registerDryRunRoutes(routes: RouteTable, deps: AppDeps, pairingSignals: PairingSignalPump): IngestPool {
  const pool = new IngestPool(deps.keyring, deps.config.dryRun.ingestThreads, deps.config.dryRun.inlineIngestMaxChars);
  const catalogue = new Set(deps.config.dryRun.providers);

  routes.add(
    {
      method: 'POST', path: '/v1/dry-run/provider-events', operationId: 'registerDryRunProviderEvents', tag: 'Dry-run', area: 'dry-run', auth: 'either',
      summary: 'Register provider traffic for dry-run validation', description: REGISTRATION_DOC,
      idempotency: IDEMPOTENCY, body: DryRunRegistrationRequest, decodeBody: false,
      responses: {
        201: { description: 'Registered', body: DryRunRegistrationResponse },
        401: { description: '`NOT_AUTHENTICATED`: no key, or payment_id sent with the public API key alone (it requires PRIVATE-SECRET-KEY); `AuthenticationFail`: the key is unknown or the two keys do not belong together' },
        404: { description: '`PAYMENT_NOT_FOUND`: payment_id is not a payment of the account (requires the secret key, see above)' },
        409: { description: '`TRAFFIC_LOG_IDEMPOTENCY_REPLAY`: X-Idempotency-Key reused with a different payload' },
      },
    },
    async (ctx) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const request = decodeRegistration(ctx.request.body, catalogue);
      // The public key is public (it ships in front ends): with it alone, answering 404 for an
      // unknown payment and 201 for a known one would confirm which payment ids exist, and the
      // 201 would echo the payment's provider and method. So payment_id needs the secret key,
      // and the answer is the same whether the payment exists or not.
      if (request.payment_id !== undefined && !readCredentialHeaders(ctx).secret) {
        throw dryRunError('NOT_AUTHENTICATED', 'payment_id requires the PRIVATE-SECRET-KEY header: with the public API key alone a registration cannot reference a payment; omit payment_id or send the secret key');
      }
      let accountId = request.account_id;
      if (accountId && !(await findOwnedAccount(deps.db, organizationCode, accountId))) {
        throw dryRunError('TRAFFIC_LOG_SEMANTIC_INVALID', 'account_id is not an account of this organization');
      }
      let payment: Record<string, any> | null = null;
      if (request.payment_id) {
        payment = await findByIdWithin(deps.db.collection('payments'), request.payment_id as never, { organization_code: organizationCode });
        if (!payment || (accountId && payment.account_id !== accountId)) throw dryRunError('PAYMENT_NOT_FOUND', `payment ${request.payment_id} not found for this account`);
        accountId = payment.account_id as string;
      }
      if (!accountId) {
        accountId = (await soleAccountId(deps.db, organizationCode)) ?? undefined;
        if (!accountId) throw dryRunError('TRAFFIC_LOG_SEMANTIC_INVALID', 'account_id is required: the organization has several accounts');
      }
      const hash = requestHash(ctx.request.body);
      const claimId = referenceKey(accountId, request.merchant_reference);
      let doc: RegistrationDoc | null = null;
      let registrationId = newRegistrationId();
      const owedSignal = (id: string) => ({ organizationCode, accountId: accountId!, merchantReference: request.merchant_reference, leg: { kind: 'registration' as const, id }, initialStatus: 'REGISTERED' });
      let signalStored: Promise<PairingSignalDoc> | null = null;
      try {
        await referenceClaims(deps.db).insertOne({ _id: claimId, registration_id: registrationId, organization_code: organizationCode, created_at: new Date() });
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
        // Registered before: the same payload is a retry (answered with the original), another one a duplicate.
        const claim = await referenceClaims(deps.db).findOne({ _id: claimId });
        registrationId = claim!.registration_id;
        doc = await registrations(deps.db).findOne({ _id: registrationId });
        if (doc && doc.request_hash !== hash) throw duplicateReference(doc);
      }
      if (!doc) {
        const events = await ingestOrThrow(pool, request.events, organizationCode, 'events').catch(async (error) => {
          // Release the reference unless a registration holds it, so a corrected request can use it.
          if (!(await registrations(deps.db).findOne({ _id: registrationId }, { projection: { _id: 1 } }))) await referenceClaims(deps.db).deleteOne({ _id: claimId, registration_id: registrationId });
          throw error;
        });
        const lastTransaction = payment?.transactions?.[payment.transactions.length - 1];
        const now = new Date();
        doc = {
          _id: registrationId, organization_code: organizationCode, account_id: accountId, merchant_reference: request.merchant_reference,
          payment_id: request.payment_id ?? null,
          provider_id: request.provider_id ?? lastTransaction?.provider_id ?? null,
          payment_method_type: request.payment_method_type ?? payment?.payment_method?.type ?? null,
          operation_type: (events.find((e) => e.type === 'REQUEST') ?? events[0]).operation_type,
          status: 'REGISTERED', events, batch_ids: [], request_hash: hash, workflow_id: pairingWorkflowId(accountId, request.merchant_reference),
          dry_run_payment_id: null, paired_at: null, validated_at: null, unmatched_at: null, verdict: null, score: null, report: null, created_at: now, updated_at: now,
        };
        // The owed signal is stored beside the registration, at the same time.
        signalStored = pairingSignals.store(owedSignal(registrationId));
        signalStored.catch(() => undefined); // awaited below, unless the insert fails first
        try {
          await registrations(deps.db).insertOne(doc);
        } catch (error) {
          if ((error as { code?: number }).code !== 11000) throw error;
          doc = await registrations(deps.db).findOne({ _id: registrationId }); // a concurrent retry of the same request stored it
          if (!doc) throw error;
        }
      }
      // Owed on every (re)try: a registration stored before a crash still reaches its workflow.
      // Stored, then delivered off this request's path (api/dry-run/pairing-signals.ts).
      pairingSignals.deliver(await (signalStored ?? pairingSignals.store(owedSignal(doc._id))));
      ctx.status = 201;
      ctx.set('Location', `/v1/dry-run/provider-events/${doc._id}`);
      ctx.body = {
        id: doc._id, status: 'REGISTERED', merchant_reference: doc.merchant_reference, payment_id: doc.payment_id, account_id: doc.account_id,
        provider_id: doc.provider_id, payment_method_type: doc.payment_method_type, operation_type: doc.operation_type,
      } satisfies DryRunRegistrationResponse;
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/dry-run/provider-events/:registration_id/events', operationId: 'addDryRunProviderEvents', tag: 'Dry-run', area: 'dry-run', auth: 'either',
      summary: 'Add late provider events (e.g. webhooks) to a registration',
      description: `Same event rules and limits as the registration (1 to 10 events per call, ${DRY_RUN_LIMITS.maxEventsPerRegistration} per registration in total). The events are redacted, appended in order and the validation re-runs (report.version increases). Same idempotency rules as the registration.`,
      idempotency: IDEMPOTENCY, body: DryRunEventsRequest, decodeBody: false, pathParams: [ID_PARAM],
      responses: { 202: { description: 'Accepted; the pairing workflow merges them', body: t.type({ id: t.string, batch_id: t.string, accepted_events: t.number }, 'DryRunEventsAccepted') }, 404: { description: 'No such registration for this organization' } },
    },
    async (ctx) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const request = decodeEventsRequest(ctx.request.body);
      const registration = await findRegistration(deps.db, organizationCode, ctx.params.registration_id);
      if (!registration) throw new ApiError('not_found', 'registration not found');
      const pendingBatches = await eventBatches(deps.db).find({ registration_id: registration._id, _id: { $nin: registration.batch_ids } }, { projection: { event_count: 1 } }).toArray();
      const total = registration.events.length + pendingBatches.reduce((n, b) => n + b.event_count, 0) + request.events.length;
      if (total > DRY_RUN_LIMITS.maxEventsPerRegistration) throw dryRunError('TRAFFIC_LOG_SEMANTIC_INVALID', `a registration holds at most ${DRY_RUN_LIMITS.maxEventsPerRegistration} events; this call would make ${total}`);
      const events = await ingestOrThrow(pool, request.events, organizationCode, 'events');
      const batchId = newRegistrationId();
      if (!registration.has_late_events) await registrations(deps.db).updateOne({ _id: registration._id }, { $set: { has_late_events: true } });
      await eventBatches(deps.db).insertOne({ _id: batchId, registration_id: registration._id, organization_code: organizationCode, account_id: registration.account_id, events, event_count: events.length, created_at: new Date() });
      await pairingSignals.owe({ organizationCode, accountId: registration.account_id, merchantReference: registration.merchant_reference, leg: { kind: 'events', id: batchId }, initialStatus: registration.status });
      ctx.status = 202;
      ctx.body = { id: registration._id, batch_id: batchId, accepted_events: events.length };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/dry-run/provider-events/:registration_id', operationId: 'getDryRunRegistration', tag: 'Dry-run', area: 'dry-run', auth: 'pair-or-bearer',
      summary: 'Read a registration: pairing status, redacted traffic, service request and validation report',
      description: 'report is null until both legs are paired and validated. Each finding has a code, category, severity (ERROR / WARNING / INFO), the path in the service request, the leg, event index and path in the provider payload, expected and actual values (redacted) and a suggested fix. score starts at 100 and loses 25 per ERROR and 5 per WARNING; verdict FAIL with any ERROR, WARN with any WARNING, else PASS.',
      pathParams: [ID_PARAM],
      responses: { 200: { description: 'The registration', body: DryRunRegistrationView }, 404: { description: 'No such registration for this organization' } },
    },
    async (ctx) => {
      const doc = await findRegistration(deps.db, ctx.state.principal!.organizationCode, ctx.params.registration_id);
      if (!doc) throw new ApiError('not_found', 'registration not found');
      ctx.body = await viewOf(deps.db, doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/dry-run/provider-events', operationId: 'listDryRunRegistrations', tag: 'Dry-run', area: 'dry-run', auth: 'pair-or-bearer',
      summary: 'List registrations, newest first, with filters and cursor pagination',
      query: [
        { name: 'merchant_reference', description: 'exact merchant_reference' },
        { name: 'status', description: 'REGISTERED, PAIRED, VALIDATED or UNMATCHED', schema: { type: 'string', enum: [...REGISTRATION_STATUSES] } },
        { name: 'verdict', description: 'PASS, WARN or FAIL', schema: { type: 'string', enum: [...VERDICTS] } },
        { name: 'account_id', description: 'one account of the organization', schema: { type: 'string', format: 'uuid' } },
        { name: 'created_from', description: 'created at or after (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
        { name: 'created_to', description: 'created before (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
        { name: 'limit', description: '1 to 100, default 20', schema: { type: 'integer', minimum: 1, maximum: 100 } },
        { name: 'cursor', description: 'next_cursor of the previous page' },
      ],
      responses: { 200: { description: 'A page of registrations', body: RegistrationList } },
    },
    async (ctx) => {
      const filter: Record<string, unknown> = { organization_code: ctx.state.principal!.organizationCode };
      const reference = queryString(ctx, 'merchant_reference');
      if (reference) filter.merchant_reference = reference;
      const status = queryString(ctx, 'status');
      if (status) {
        if (!(REGISTRATION_STATUSES as readonly string[]).includes(status)) throw invalidQuery('status', `status must be one of ${REGISTRATION_STATUSES.join(', ')}`);
        filter.status = status;
      }
      const verdict = queryString(ctx, 'verdict');
      if (verdict) {
        if (!(VERDICTS as readonly string[]).includes(verdict)) throw invalidQuery('verdict', `verdict must be one of ${VERDICTS.join(', ')}`);
        filter.verdict = verdict;
      }
      const accountId = queryString(ctx, 'account_id');
      if (accountId) filter.account_id = accountId;
      const from = queryDate(ctx, 'created_from');
      const to = queryDate(ctx, 'created_to');
      if (from || to) filter.created_at = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) };
      const limitRaw = queryString(ctx, 'limit') ?? '20';
      const limit = Number(limitRaw);
      if (!/^\d+$/.test(limitRaw) || limit < 1 || limit > 100) throw invalidQuery('limit', 'limit must be an integer from 1 to 100');
      const cursorRaw = queryString(ctx, 'cursor');
      if (cursorRaw) {
        const cursor = decodeCursor(cursorRaw);
        filter.$or = [{ created_at: { $lt: cursor.t } }, { created_at: cursor.t, _id: { $lt: cursor.id } }];
      }
      const docs = await registrations(deps.db).find(filter as never, { projection: { 'events.body.text': 0, 'events.headers': 0, report: 0 } }).sort({ created_at: -1, _id: -1 }).limit(limit + 1).toArray();
      const page = docs.slice(0, limit);
      ctx.body = { data: page.map(summaryOf), next_cursor: docs.length > limit ? encodeCursor(page[page.length - 1]) : null };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/dashboard/dry-run', operationId: 'dryRunDashboard', tag: 'Dry-run', area: 'default', auth: 'none', unlimited: true,
      summary: 'Dry-run dashboard (HTML): registrations, verdicts and reports side by side',
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: { type: 'string' } } },
    },
    (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'");
      ctx.body = renderDryRunDashboard();
    },
  );
  return pool;
}

function duplicateReference(existing: RegistrationDoc | null): ApiError {
  return dryRunError(
    'TRAFFIC_LOG_SEMANTIC_INVALID',
    `merchant_reference is already registered for this account${existing ? ` (registration ${existing._id}); add late events with POST /v1/dry-run/provider-events/${existing._id}/events` : ''}`,
  );
}
