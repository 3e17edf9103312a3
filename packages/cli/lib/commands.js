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

/** Sandbox test cards (README, Payments) and what each trigger does with them. */
const TRIGGERS = {
  'payment.succeeded': { card: '4111111111111111', refund: false, expect: 'SUCCEEDED' },
  'payment.declined': { card: '4000000000009979', refund: false, expect: 'DECLINED' },
  'payment.refunded': { card: '4111111111111111', refund: true, expect: 'REFUNDED' },
};

/**
 * `switchyard trigger <event>`: creates a sandbox test payment that produces the event
 * (approved card; hard-declined card; approved, captured, then fully refunded) on the
 * account (--account-id / SWITCHYARD_ACCOUNT_ID, or the organization's only account).
 */
async function trigger(options, event) {
  const plan = TRIGGERS[event];
  if (!plan) throw new CliError(`usage: switchyard trigger ${Object.keys(TRIGGERS).join('|')}`, EXIT.usage);
  resolveConfig(options);
  const accountId = await resolveAccount(options);
  const amount = Number(options.amount || 10);
  let payment = await api(options, 'POST', '/v1/payments', { params: { header: { 'X-Idempotency-Key': crypto.randomUUID() } }, body: {
    account_id: accountId,
    description: `switchyard trigger ${event}`,
    country: options.country || 'US',
    merchant_order_id: `trigger-${Date.now().toString(36)}-${crypto.randomBytes(3).toString('hex')}`,
    amount: { currency: options.currency || 'USD', value: amount },
    capture: true,
    payment_method: { type: 'CARD', detail: { card: { number: plan.card, holder_name: 'SWITCHYARD TEST', expiration_month: 12, expiration_year: new Date().getUTCFullYear() + 3, security_code: '123' } } },
    metadata: [{ key: 'trigger', value: event }],
  } });
  // A slow answer is PENDING: the outcome follows, read it back.
  for (let i = 0; payment.status === 'PENDING' && i < 60; i++) {
    await sleep(500);
    payment = await api(options, 'GET', '/v1/payments/{payment_id}', { params: { path: { payment_id: payment.id } } });
  }
  if (plan.refund && payment.status === 'SUCCEEDED') {
    payment = await api(options, 'POST', '/v1/payments/{payment_id}/refunds', {
      params: { path: { payment_id: payment.id }, header: { 'X-Idempotency-Key': crypto.randomUUID() } },
      body: { amount, reason: 'switchyard trigger' },
    });
  }
  if (payment.status !== plan.expect) throw new CliError(`the test payment ${payment.id} ended ${payment.status}/${payment.sub_status}, not ${plan.expect}`, EXIT.api);
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
