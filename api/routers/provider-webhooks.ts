/**
 * Incoming provider webhooks: POST /v1/provider-webhooks/{connection_id}. Public (providers
 * send no merchant credentials): authenticity comes from the provider's signature, checked
 * with the connection's own secret through the provider's SDK (Stripe: `Stripe-Signature`
 * with `webhooks.constructEvent` and the webhook signing secret; Adyen: each notification
 * item's HMAC with the library's HmacValidator and the HMAC key). The secrets are opened here,
 * for the check only, and never logged.
 *
 * Each verified event is kept once per connection in `provider_events`, whose _id is
 * `<connection id>:<provider event id>`: the insert is the idempotency gate, atomic across API
 * processes (a repeat finds the id taken, answers 200 and does nothing). The event is then
 * matched to a payment of the connection's own account (our payment id from the provider's
 * metadata / merchant reference, else the provider's reference on one of the payment's
 * transactions; the payment must have used this connection) and handed to the payment's
 * workflow (update `providerEvent`). A failure before the workflow took it removes the record
 * and answers 500, so the provider's retry is processed again.
 */
import { hmacValidator as HmacValidator } from '@adyen/api-library';
import Stripe from 'stripe';
import type { Db } from 'mongodb';
import { findConnection, openConnectionCredentials } from '../../activities/repositories/routing';
import { findPayment, PaymentDoc, toRecord } from '../../activities/repositories/payments';
import { isUuid } from '../../domain/codecs/common';
import { ApiError } from '../../domain/errors';
import { adyenProviderEvent, ProviderEvent, stripeProviderEvent } from '../../domain/providers/events';
import type { PaymentRecord } from '../../domain/payments/record';
import { ProviderEventOutcome, providerEventUpdate } from '../../workflows/payment';
import { closedBeforeUpdate, updateRetryingUnprocessed } from '../lifecycle';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';
import { paymentWorkflowId } from './payments';

export const PROVIDER_WEBHOOK_DOC =
  'Where a provider sends its webhooks for one provider connection: configure https://<your Switchyard>/v1/provider-webhooks/<connection id> at the provider. ' +
  'No merchant credentials: the provider\'s signature is checked with the connection\'s secret (STRIPE: the `Stripe-Signature` header against credentials.webhook_secret; ' +
  'ADYEN: every notification item\'s HMAC signature, additionalData.hmacSignature, against credentials.hmac_key). A missing signature answers 400 SIGNATURE_MISSING, ' +
  'a signature that does not verify (or a connection without that secret, or no such connection) 401 INVALID_SIGNATURE, a body that is not the provider\'s event shape 400. ' +
  'A verified event is answered 200 (ADYEN: the text [accepted], which Adyen expects) and applied once: a repeat of the same provider event id answers 200 and changes nothing. ' +
  'It applies to a payment of the connection\'s account that used the connection: the asynchronous outcome of a payment waiting in PENDING/WAITING_ADDITIONAL_STEP ' +
  '(3-D Secure completed or failed, a pending answer settled: STRIPE payment_intent.succeeded, payment_intent.amount_capturable_updated, payment_intent.payment_failed; ' +
  'ADYEN AUTHORISATION with success true or false) authorizes, captures or declines it with a new transaction; a dispute (STRIPE charge.dispute.created, ' +
  'charge.dispute.funds_withdrawn; ADYEN NOTIFICATION_OF_CHARGEBACK, CHARGEBACK) adds a CHARGEBACK transaction (PENDING while disputed, SUCCEEDED once the funds are withdrawn). ' +
  'Other events are acknowledged and kept without changing anything.';

const WEBHOOK_PROVIDERS = ['STRIPE', 'ADYEN'];

const invalidSignature = () => new ApiError('invalid_credentials', 'the webhook signature does not verify for this connection', { code: 'INVALID_SIGNATURE' });
const signatureMissing = (what: string) => new ApiError('validation', `${what} is required: provider webhooks are authenticated by their signature`, { code: 'SIGNATURE_MISSING' });
const badBody = (message: string) => new ApiError('validation', message, { code: 'INVALID_PROVIDER_EVENT' });

interface ProviderEventDoc {
  _id: string;
  connection_id: string;
  organization_code: string;
  account_id: string;
  provider_id: string;
  event_id: string;
  type: string;
  kind: string;
  payment_id: string | null;
  status: 'RECEIVED' | 'APPLIED' | 'IGNORED' | 'UNMATCHED';
  detail: string | null;
  received_at: Date;
  processed_at: Date | null;
}

/** Verifies a Stripe webhook and maps its event. */
function stripeEvents(ctx: AppContext, raw: string, webhookSecret: string | undefined): ProviderEvent[] {
  const header = ctx.get('stripe-signature');
  if (!header) throw signatureMissing('the Stripe-Signature header');
  if (!webhookSecret) throw invalidSignature();
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(raw, header, webhookSecret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw invalidSignature();
    throw badBody('the body is not a Stripe event');
  }
  if (!event || typeof event.id !== 'string' || typeof event.type !== 'string' || !event.data?.object) throw badBody('the body is not a Stripe event');
  return [stripeProviderEvent(event as unknown as Parameters<typeof stripeProviderEvent>[0])];
}

/** Verifies every item of an Adyen standard webhook (HMAC) and maps them. */
function adyenEvents(body: unknown, hmacKey: string | undefined): ProviderEvent[] {
  const items = (body as { notificationItems?: unknown })?.notificationItems;
  if (!Array.isArray(items) || items.length === 0) throw badBody('the body is not an Adyen notification: notificationItems is missing');
  const requests = items.map((item) => (item as { NotificationRequestItem?: Record<string, any> })?.NotificationRequestItem);
  if (requests.some((r) => !r || typeof r !== 'object' || !r.amount || typeof r.eventCode !== 'string' || typeof r.pspReference !== 'string')) {
    throw badBody('every notification item needs NotificationRequestItem with eventCode, pspReference and amount');
  }
  if (requests.some((r) => !r!.additionalData?.hmacSignature)) throw signatureMissing('additionalData.hmacSignature on every notification item');
  if (!hmacKey) throw invalidSignature();
  const validator = new HmacValidator();
  for (const r of requests) {
    let valid = false;
    try {
      valid = validator.validateHMAC(r as never, hmacKey);
    } catch {
      valid = false;
    }
    if (!valid) throw invalidSignature();
  }
  return requests.map((r) => adyenProviderEvent(r!));
}

/** The payment an event is about, among the connection's account's payments that used the connection. */
async function paymentOf(db: Db, connection: { _id: string; organization_code: string; account_id: string }, event: ProviderEvent): Promise<PaymentRecord | null> {
  const usedConnection = (p: PaymentRecord | null) => (p && p.account_id === connection.account_id && p.transactions.some((t) => t.connection_id === connection._id) ? p : null);
  if (event.paymentId) {
    const byId = usedConnection(await findPayment(db, connection.organization_code, event.paymentId));
    if (byId) return byId;
  }
  for (const reference of event.providerReferences) {
    const doc = await db.collection<PaymentDoc>('payments').findOne({ organization_code: connection.organization_code, account_id: connection.account_id, 'transactions.provider_data.transaction_id': reference });
    const found = usedConnection(doc ? toRecord(doc) : null);
    if (found) return found;
  }
  return null;
}

export function registerProviderWebhookRoutes(routes: RouteTable, deps: AppDeps): void {
  const events = deps.db.collection<ProviderEventDoc>('provider_events');

  /** Hands one verified event to its payment; the outcome is what the record keeps. */
  async function apply(connection: { _id: string; organization_code: string; account_id: string; provider_id: string }, event: ProviderEvent): Promise<'duplicate' | ProviderEventDoc['status']> {
    const _id = `${connection._id}:${event.eventId}`;
    try {
      await events.insertOne({
        _id, connection_id: connection._id, organization_code: connection.organization_code, account_id: connection.account_id, provider_id: connection.provider_id,
        event_id: event.eventId, type: event.type, kind: event.kind, payment_id: null, status: 'RECEIVED', detail: null, received_at: new Date(), processed_at: null,
      });
    } catch (error) {
      if ((error as { code?: number }).code === 11000) return 'duplicate';
      throw error;
    }
    try {
      const payment = await paymentOf(deps.db, connection, event);
      let status: ProviderEventDoc['status'] = 'UNMATCHED';
      let detail = 'no payment of this connection\'s account matches the event';
      if (payment) {
        let outcome: ProviderEventOutcome;
        try {
          const handle = deps.temporal.workflow.getHandle(paymentWorkflowId(payment.id));
          outcome = await updateRetryingUnprocessed(() => handle.executeUpdate(providerEventUpdate, { args: [{ ...event, connectionId: connection._id }], updateId: `provider-event-${_id}`.slice(0, 400) }));
        } catch (error) {
          if (!closedBeforeUpdate(error)) throw error;
          outcome = { applied: false, detail: `the payment is closed (${payment.status}/${payment.sub_status})` };
        }
        status = outcome.applied ? 'APPLIED' : 'IGNORED';
        detail = outcome.detail;
      }
      await events.updateOne({ _id }, { $set: { status, detail, payment_id: payment?.id ?? null, processed_at: new Date() } });
      return status;
    } catch (error) {
      // Not applied: forget it, so that the provider's retry is processed again.
      await events.deleteOne({ _id, status: 'RECEIVED' }).catch(() => undefined);
      throw error;
    }
  }

  routes.add(
    {
      method: 'POST', path: '/v1/provider-webhooks/:connection_id', operationId: 'receiveProviderWebhook', tag: 'Provider webhooks', area: 'default', auth: 'none',
      summary: 'Receive a provider\'s webhook (Stripe events, Adyen notifications) for one provider connection',
      description: PROVIDER_WEBHOOK_DOC,
      decodeBody: false,
      pathParams: [{ name: 'connection_id', description: 'the provider connection (UUID) whose webhook this is', schema: { type: 'string', format: 'uuid' } }],
      headers: [{ name: 'Stripe-Signature', description: 'STRIPE connections: Stripe\'s signature of the body (t=...,v1=...)' }],
      responses: {
        200: {
          description: 'Verified and processed (or a repeat, ignored). STRIPE: JSON {received, events: [{event_id, status}]}; ADYEN: the text [accepted].',
          schema: { oneOf: [{ type: 'object', properties: { received: { type: 'boolean' }, events: { type: 'array', items: { type: 'object', properties: { event_id: { type: 'string' }, status: { type: 'string', enum: ['APPLIED', 'IGNORED', 'UNMATCHED', 'DUPLICATE'] } } } } } }, { type: 'string', enum: ['[accepted]'] }] },
          contentType: ['application/json', 'text/plain'],
        },
        400: { description: 'SIGNATURE_MISSING (no signature sent), INVALID_PROVIDER_EVENT (not the provider\'s event shape) or an unreadable body' },
        401: { description: 'INVALID_SIGNATURE: the signature does not verify with the connection\'s secret (also for an unknown connection or one without that secret)' },
      },
    },
    async (ctx) => {
      const connectionId = String(ctx.params.connection_id ?? '');
      const connection = isUuid(connectionId) ? await findConnection(deps.db, connectionId) : null;
      if (!connection || !WEBHOOK_PROVIDERS.includes(connection.provider_id)) throw invalidSignature();
      const raw = ctx.request.rawBody;
      if (raw === undefined || raw === '') throw badBody('the body is empty');
      const credentials = await openConnectionCredentials(deps.db, deps.keyring, connection._id);
      const verified = connection.provider_id === 'STRIPE' ? stripeEvents(ctx, raw, credentials?.webhookSecret) : adyenEvents(ctx.request.body, credentials?.hmacKey);
      const outcomes: Array<{ event_id: string; status: string }> = [];
      for (const event of verified) {
        const status = await apply(connection, event);
        outcomes.push({ event_id: event.eventId, status: status === 'duplicate' ? 'DUPLICATE' : status });
      }
      ctx.status = 200;
      if (connection.provider_id === 'ADYEN') {
        ctx.type = 'text/plain';
        ctx.body = '[accepted]';
      } else {
        ctx.body = { received: true, events: outcomes };
      }
    },
  );
}
