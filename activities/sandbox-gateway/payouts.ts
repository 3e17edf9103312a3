/**
 * The sandbox gateway's money-out side: credits (unreferenced refunds) to cards, bank
 * accounts and wallets, marketplace recipients and transfers to them. Mounted by
 * ./server.ts; the same idempotency (a repeated Idempotency-Key returns the first answer)
 * and outage switch apply.
 *
 *   POST /v1/credits      {amount, currency, reference, description, destination: {type: CARD|BANK_TRANSFER|WALLET, card|bank|wallet}}
 *   POST /v1/recipients   {reference, existing_recipient_id?, legal_entity, documents: [{category}], terms_accepted, bank}
 *   POST /v1/transfers    {amount, currency, recipient, reference, description}
 *   GET  /_sandbox/credits?reference=   GET /_sandbox/transfers?reference=   (test controls)
 *
 * Outcomes: card credits follow the test cards (declining and 500 cards as for charges);
 * a bank account ending in 0002 and a wallet token starting with "decline" are declined;
 * a NEW recipient without an IDENTIFICATION_DOCUMENT is PENDING_REVIEW, one that did not
 * accept the terms is REJECTED; a transfer to an unknown recipient is declined (14), one of
 * 66.66 (6666 minor units) is declined do-not-honor (05).
 */
import { randomUUID } from 'node:crypto';
import { ISO8583_MESSAGES } from '../../domain/payments/provider-codes';
import { behaviourOf } from './test-cards';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const iso = (code: string) => ({ iso8583_response_code: code, iso8583_response_message: ISO8583_MESSAGES[code] ?? 'Unknown' });
const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

export function createPayoutSimulator() {
  const credits: Array<Record<string, unknown>> = [];
  const transfers: Array<Record<string, unknown>> = [];
  const recipients = new Map<string, { merchant_id: string; status: string }>();

  function credit(merchantId: string, body: Record<string, any>): Answer {
    const destination = (body.destination ?? {}) as Record<string, any>;
    if (!Number.isInteger(body.amount) || body.amount <= 0 || !['CARD', 'BANK_TRANSFER', 'WALLET'].includes(destination.type)) {
      return { status: 400, body: { error: 'invalid_request', message: 'a positive integer amount and a destination are required', ...iso('12') } };
    }
    let outcome: { status: number; code: string; state: string } = { status: 201, code: '00', state: 'APPROVED' };
    let last4: string | null = null;
    if (destination.type === 'CARD') {
      const pan = String(destination.card?.number ?? '');
      last4 = pan.slice(-4);
      const behaviour = behaviourOf(pan);
      if (behaviour.kind === 'decline') outcome = { status: 402, code: behaviour.iso, state: 'DECLINED' };
      if (behaviour.kind === 'server_error') return { status: 500, body: { error: 'processing_error', message: 'acquirer host malfunction', ...iso('96') } };
    } else if (destination.type === 'BANK_TRANSFER') {
      const account = String(destination.bank?.account ?? destination.bank?.provider_token ?? '');
      last4 = account.slice(-4);
      if (account.endsWith('0002')) outcome = { status: 402, code: '05', state: 'DECLINED' };
    } else {
      const token = String(destination.wallet?.payment_token ?? '');
      last4 = token.slice(-4);
      if (token.startsWith('decline')) outcome = { status: 402, code: '05', state: 'DECLINED' };
    }
    const record = { id: newId('cr'), merchant_id: merchantId, reference: String(body.reference ?? ''), destination_type: destination.type, destination_last4: last4, amount: body.amount, currency: body.currency, status: outcome.state, created_at: new Date().toISOString() };
    credits.push(record);
    return { status: outcome.status, body: { ...record, ...iso(outcome.code) } };
  }

  function onboard(merchantId: string, body: Record<string, any>): Answer {
    const existing = typeof body.existing_recipient_id === 'string' && body.existing_recipient_id ? body.existing_recipient_id : null;
    const id = existing ?? newId('rcp');
    const documents = Array.isArray(body.documents) ? body.documents : [];
    let status = 'ACTIVE';
    const requirements: Array<{ code: string; message: string }> = [];
    if (body.terms_accepted !== true) status = 'REJECTED';
    else if (!existing && !documents.some((d: any) => d?.category === 'IDENTIFICATION_DOCUMENT')) {
      status = 'PENDING_REVIEW';
      requirements.push({ code: 'IDENTIFICATION_DOCUMENT', message: 'an identification document is needed before payouts' });
    }
    recipients.set(id, { merchant_id: merchantId, status });
    const answer = {
      id,
      status,
      requirements,
      legal_entity: { type: body.legal_entity?.type ?? null, name: body.legal_entity?.name ?? null, country: body.legal_entity?.country ?? null },
      onboarding_url: null,
      redirect_url: null,
    };
    if (status === 'REJECTED') return { status: 422, body: { ...answer, error: 'terms_not_accepted', message: 'the recipient must accept the terms of service', ...iso('12') } };
    return { status: 201, body: { ...answer, ...iso('00') } };
  }

  function transfer(merchantId: string, body: Record<string, any>): Answer {
    if (!Number.isInteger(body.amount) || body.amount <= 0) return { status: 400, body: { error: 'invalid_request', message: 'a positive integer amount is required', ...iso('12') } };
    const recipient = recipients.get(String(body.recipient ?? ''));
    const known = recipient && recipient.status === 'ACTIVE';
    const record = { id: newId('tr'), merchant_id: merchantId, recipient: body.recipient, reference: String(body.reference ?? ''), amount: body.amount, currency: body.currency, status: (known ? 'PAID' : 'DECLINED') as string, created_at: new Date().toISOString() };
    transfers.push(record);
    if (!known) return { status: 422, body: { ...record, error: 'unknown_recipient', message: 'no active recipient with this id', ...iso('14') } };
    if (body.amount === 6666) {
      record.status = 'DECLINED';
      return { status: 402, body: { ...record, error: 'declined', message: 'transfer declined by the receiving bank', ...iso('05') } };
    }
    return { status: 201, body: { ...record, ...iso('00') } };
  }

  return {
    /** Test controls (GET); null when the path is not ours. */
    control(method: string | undefined, url: URL): Answer | null {
      if (method !== 'GET') return null;
      const reference = url.searchParams.get('reference');
      const list = url.pathname === '/_sandbox/credits' ? credits : url.pathname === '/_sandbox/transfers' ? transfers : null;
      if (!list) return null;
      const found = list.filter((c) => !reference || c.reference === reference);
      return { status: 200, body: { count: found.length, items: found } };
    },
    /** The operation for an acquirer call, run once per idempotency key by the server; null when not ours. */
    operation(parts: string[], merchantId: string, body: Record<string, any>): (() => Answer) | null {
      if (parts.length !== 2) return null;
      if (parts[1] === 'credits') return () => credit(merchantId, body);
      if (parts[1] === 'recipients') return () => onboard(merchantId, body);
      if (parts[1] === 'transfers') return () => transfer(merchantId, body);
      return null;
    },
  };
}
