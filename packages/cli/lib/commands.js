'use strict';
/**
 * `switchyard payments get`, `switchyard trigger`, `switchyard listen`.
 */
const crypto = require('node:crypto');
const { EXIT, CliError, resolveConfig, api, sleep, resolveAccount } = require('./common');

/** `switchyard payments get <payment_id> [--include-transactions] [--include-raw-response]`: the payment as JSON. */
async function paymentsGet(options, id) {
  if (!id) throw new CliError('usage: switchyard payments get <payment_id> [--include-transactions] [--include-raw-response]', EXIT.usage);
  resolveConfig(options);
  const query = {};
  if (options.includeTransactions) query.include_transactions = true;
  if (options.includeRawResponse) query.include_raw_response = true;
  const payment = await api(options, 'GET', '/v1/payments/{payment_id}', { params: { path: { payment_id: id }, query } });
  process.stdout.write(`${JSON.stringify(payment, null, 2)}\n`);
  return EXIT.ok;
}

/**
 * Sandbox test cards (README, Payments) and what each trigger does with them: the card, whether
 * the payment captures at once, the follow-up call (if any) and the status that announces the event.
 */
const APPROVED = '4111111111111111';
const TRIGGERS = {
  'payment.succeeded': { card: APPROVED, capture: true, expect: 'SUCCEEDED/CAPTURED', does: 'an approved card, captured' },
  'payment.declined': { card: '4000000000009979', capture: true, expect: 'DECLINED/DECLINED', does: 'a hard-declined card' },
  'payment.pending': { card: '4000000000003220', capture: true, expect: 'PENDING/WAITING_ADDITIONAL_STEP', does: 'a card that requires 3-D Secure' },
  'payment.failed': { card: '4000000000000119', capture: true, expect: 'ERROR/PROVIDER_ERROR', does: 'a card every provider answers with an error' },
  'payment.captured': { card: APPROVED, capture: false, then: 'capture', expect: 'SUCCEEDED/PARTIALLY_CAPTURED', does: 'an approved card authorized, then half captured' },
  'payment.canceled': { card: APPROVED, capture: false, then: 'cancel', expect: 'CANCELED/CANCELED', does: 'an approved card authorized, then canceled' },
  'payment.refunded': { card: APPROVED, capture: true, then: 'refund', expect: 'REFUNDED/REFUNDED', does: 'an approved card, captured, then fully refunded' },
};

/**
 * `switchyard trigger <event>`: creates a sandbox test payment that produces the event (see
 * TRIGGERS) on the account (--account-id / SWITCHYARD_ACCOUNT_ID, or the organization's only account).
 */
async function trigger(options, event) {
  const plan = TRIGGERS[event];
  if (!plan) throw new CliError(`usage: switchyard trigger ${Object.keys(TRIGGERS).join('|')}`, EXIT.usage);
  resolveConfig(options);
  const accountId = await resolveAccount(options);
  const amount = Number(options.amount || 10);
  const idempotency = () => ({ 'X-Idempotency-Key': crypto.randomUUID() });
  let payment = await api(options, 'POST', '/v1/payments', { params: { header: idempotency() }, body: {
    account_id: accountId,
    description: `switchyard trigger ${event}`,
    country: options.country || 'US',
    merchant_order_id: `trigger-${Date.now().toString(36)}-${crypto.randomBytes(3).toString('hex')}`,
    amount: { currency: options.currency || 'USD', value: amount },
    capture: plan.capture,
    payment_method: { type: 'CARD', detail: { card: { number: plan.card, holder_name: 'SWITCHYARD TEST', expiration_month: 12, expiration_year: new Date().getUTCFullYear() + 3, security_code: '123' } } },
    metadata: [{ key: 'trigger', value: event }],
  } });
  // A slow provider answers PENDING/PROCESSING: the outcome follows, read it back.
  for (let i = 0; payment.sub_status === 'PROCESSING' && i < 60; i++) {
    await sleep(500);
    payment = await api(options, 'GET', '/v1/payments/{payment_id}', { params: { path: { payment_id: payment.id } } });
  }
  if (plan.then && payment.status === 'SUCCEEDED') {
    const path = { payment_id: payment.id };
    if (plan.then === 'refund') payment = await api(options, 'POST', '/v1/payments/{payment_id}/refunds', { params: { path, header: idempotency() }, body: { amount, reason: 'switchyard trigger' } });
    if (plan.then === 'capture') payment = await api(options, 'POST', '/v1/payments/{payment_id}/capture', { params: { path, header: idempotency() }, body: { amount: Math.round(amount * 50) / 100 } });
    if (plan.then === 'cancel') payment = await api(options, 'POST', '/v1/payments/{payment_id}/cancel', { params: { path, header: idempotency() }, body: {} });
  }
  if (`${payment.status}/${payment.sub_status}` !== plan.expect) throw new CliError(`the test payment ${payment.id} ended ${payment.status}/${payment.sub_status}, not ${plan.expect}`, EXIT.api);
  process.stderr.write(`Triggered ${event}: payment ${payment.id} is ${payment.status}/${payment.sub_status}\n`);
  process.stdout.write(`${JSON.stringify({ event, payment_id: payment.id, status: payment.status, sub_status: payment.sub_status })}\n`);
  return EXIT.ok;
}

/**
 * `switchyard listen --forward-to URL`: follows GET /v1/webhook-events (long poll) and POSTs
 * each event's exact body to URL with the `Switchyard-Signature` Switchyard computed for it
 * with the account's webhook secret, so a local handler verifies it as it would a delivery.
 */
async function listen(options) {
  if (!options.forwardTo) throw new CliError('usage: switchyard listen --forward-to http://localhost:8080/webhooks [--events TYPE,...] [--from-start] [--max-events N]', EXIT.usage);
  let target;
  try {
    target = new URL(options.forwardTo);
  } catch {
    throw new CliError(`--forward-to must be a URL, e.g. http://localhost:8080/webhooks (got ${options.forwardTo})`, EXIT.usage);
  }
  resolveConfig(options);
  const only = options.events ? new Set(String(options.events).split(',').map((s) => s.trim()).filter(Boolean)) : null;
  const maxEvents = options.maxEvents === undefined ? Infinity : Number(options.maxEvents);
  if (!(maxEvents > 0)) throw new CliError('--max-events must be a positive number', EXIT.usage);

  // The signing secret a local handler needs (the account's; with several accounts, each has its own).
  const { accounts } = await api(options, 'GET', '/v1/accounts');
  for (const account of accounts.slice(0, 5)) {
    const endpoint = await api(options, 'GET', '/v1/accounts/{account_id}/webhook', { params: { path: { account_id: account.id } } });
    process.stderr.write(`Webhook signing secret of account ${account.id}: ${endpoint.secret}\n`);
  }
  let cursor = options.fromStart ? '0' : undefined;
  // The first call fixes "now" on the server's clock, so nothing announced from here on is missed.
  if (cursor === undefined) cursor = (await api(options, 'GET', '/v1/webhook-events', { params: { query: { wait: 0, limit: 1 } } })).next_cursor;
  process.stderr.write(`Ready! Forwarding webhook events to ${target.href} (Ctrl-C to quit)\n`);

  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let forwarded = 0;
  while (!stopping && forwarded < maxEvents) {
    let page;
    try {
      page = await api(options, 'GET', '/v1/webhook-events', { params: { query: { after: cursor, wait: 25, limit: 50 } } });
    } catch (error) {
      if (error.exitCode !== EXIT.api || /answered 4\d\d/.test(error.message)) throw error;
      process.stderr.write(`${error.message}; retrying in 2 s\n`);
      await sleep(2000);
      continue;
    }
    for (const event of page.events) {
      if (only && !only.has(event.type)) continue;
      const started = Date.now();
      let outcome;
      try {
        const response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Switchyard-Webhooks/1 (switchyard listen)', 'switchyard-signature': event.signature },
          body: event.body,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer().catch(() => undefined);
        outcome = `${response.status}`;
      } catch (error) {
        outcome = `failed: ${(error.cause && error.cause.message) || error.message}`;
      }
      process.stdout.write(`${new Date().toISOString()}  --> ${event.type} [${event.id}]  <-- ${outcome} (${Date.now() - started} ms)\n`);
      forwarded++;
      if (forwarded >= maxEvents) break;
    }
    cursor = page.next_cursor;
  }
  return EXIT.ok;
}

module.exports = { paymentsGet, trigger, listen, TRIGGERS };
