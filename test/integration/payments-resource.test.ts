import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { startApi } from '../../api/server';
import { createLogger } from '../../activities/runtime/logger';
import { verifyWebhookSignature } from '../../domain/webhooks';
import { call, getStack, newMerchant } from '../support/stack';
import { pay, TEST_CVV } from '../support/payments';

const BROWSER = { user_agent: 'Mozilla/5.0', accept_header: 'text/html', accept_content: '*/*', accept_browser: 'text/html', color_depth: '24', screen_height: '1080', screen_width: '1920', javascript_enabled: true, java_enabled: false, browser_time_difference: '300', language: 'es-CO' };
const ADDRESS = { address_line_1: 'Calle 1', address_line_2: null, city: 'Medellin', state: 'ANT', country: 'CO', zip_code: '050001' };

describe('payments: the resource, webhooks, events and sensitive data', function () {
  this.timeout(60_000);

  it('returns every field of the spec\'s Payment resource', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.approved, {
      merchant_reference: 'ref-001',
      workflow: 'DIRECT',
      callback_url: 'https://shop.example/hook',
      metadata: [{ key: 'channel', value: 'web' }],
      additional_data: { order: { fee_amount: 1 } },
      taxes: [{ type: 'VAT', value: 7.98, tax_base: 42.01, percentage: 19 }],
      split: [{ recipient_id: 'seller-1', amount: { currency: 'USD', value: 40 }, type: 'PURCHASE' }],
      customer_payer: { first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', ip_address: '10.0.0.1', device_fingerprint: 'fp-1', browser_info: BROWSER, billing_address: ADDRESS, shipping_address: ADDRESS, document: { document_type: 'CC', document_number: '123456' }, phone: { number: '3001234567', country_code: '57' } },
    });
    const got = await call(`/v1/payments/${r.body.id}?include_raw_response=true`, { credentials: m });
    const p = got.body;
    assert.deepEqual(Object.keys(p).sort(), ['account_id', 'additional_data', 'amount', 'callback_url', 'checkout', 'country', 'created_at', 'customer_payer', 'description', 'id', 'merchant_order_id', 'merchant_reference', 'metadata', 'payment_method', 'split', 'status', 'sub_status', 'taxes', 'transactions', 'updated_at', 'workflow']);
    assert.deepEqual(Object.keys(p.amount).sort(), ['captured', 'currency', 'refunded', 'value']);
    assert.deepEqual(Object.keys(p.checkout).sort(), ['sdk_action_required', 'session']);
    assert.deepEqual(Object.keys(p.payment_method).sort(), ['payment_method_detail', 'token', 'type', 'vault_on_success', 'vaulted_token']);
    assert.equal(p.payment_method.vaulted_token, '');
    assert.deepEqual(Object.keys(p.payment_method.payment_method_detail).sort(), ['bank_transfer', 'card']);
    assert.deepEqual([p.payment_method.payment_method_detail.card.iin, p.payment_method.payment_method_detail.card.lfd, p.payment_method.payment_method_detail.card.brand], ['41111111', '1111', 'VISA']);
    assert.deepEqual(Object.keys(p.customer_payer).sort(), ['billing_address', 'browser_info', 'date_of_birth', 'device_fingerprint', 'document', 'email', 'first_name', 'gender', 'id', 'ip_address', 'last_name', 'merchant_customer_id', 'nationality', 'phone', 'shipping_address']);
    assert.deepEqual(p.customer_payer.browser_info, BROWSER);
    assert.deepEqual(p.customer_payer.shipping_address, ADDRESS);
    const tx = p.transactions[0];
    assert.deepEqual(Object.keys(tx).sort(), ['amount', 'category', 'created_at', 'description', 'id', 'merchant_reference', 'payment_method', 'provider_data', 'provider_id', 'reason', 'response_code', 'response_message', 'status', 'three_d_secure_action_required', 'type', 'updated_at']);
    assert.deepEqual(Object.keys(tx.payment_method).sort(), ['detail', 'token', 'type', 'vault_on_success', 'vaulted_token']);
    assert.deepEqual(Object.keys(tx.provider_data).sort(), ['account_id', 'id', 'iso8583_response_code', 'iso8583_response_message', 'raw_response', 'response_code', 'response_message', 'status', 'status_detail', 'third_party_transaction_id', 'transaction_id']);
    assert.equal(tx.provider_data.raw_response.status, 'APPROVED');
    assert.deepEqual([tx.provider_id, tx.provider_data.id, tx.merchant_reference], ['SANDBOX', 'SANDBOX', 'ref-001']);
    assert.deepEqual(p.metadata, [{ key: 'channel', value: 'web' }]);
    assert.deepEqual(p.taxes, [{ type: 'VAT', value: 7.98, tax_base: 42.01, percentage: 19 }]);
    assert.deepEqual(p.split, [{ recipient_id: 'seller-1', type: 'PURCHASE', merchant_reference: null, liable_for_chargebacks: null, amount: { currency: 'USD', value: 40 } }]);
    assert.deepEqual([p.callback_url, p.workflow, p.merchant_reference], ['https://shop.example/hook', 'DIRECT', 'ref-001']);
  });

  it('delivers signed webhooks with retries, records every attempt, and stores payment.declined', async () => {
    const received: Array<{ signature: string; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ signature: String(req.headers['switchyard-signature']), body });
        res.writeHead(received.length === 1 ? 500 : 204).end(); // the first attempt fails
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const m = await newMerchant();
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
      const endpoint = await call(`/v1/accounts/${m.account_id}/webhook`, { method: 'PUT', body: { url }, credentials: m });
      assert.equal(endpoint.status, 200, endpoint.text);
      assert.match(endpoint.body.secret, /^whsec_/);
      const r = await pay(m, TEST_CARDS.insufficientFunds);
      assert.equal(r.body.status, 'DECLINED');
      let deliveries: any[] = [];
      for (let i = 0; i < 100; i++) {
        deliveries = (await call(`/v1/webhooks/deliveries?resource_id=${r.body.id}`, { credentials: m })).body.deliveries;
        if (deliveries[0]?.status === 'DELIVERED') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(deliveries.length, 1);
      assert.deepEqual([deliveries[0].event_type, deliveries[0].status, deliveries[0].url], ['payment.declined', 'DELIVERED', url]);
      assert.deepEqual(deliveries[0].attempts.map((a: any) => a.status_code), [500, 204]);
      assert.ok(deliveries[0].attempts[0].next_retry_at);
      assert.equal(received.length, 2);
      const now = Math.floor(Date.now() / 1000);
      assert.ok(verifyWebhookSignature(received[1].signature, received[1].body, endpoint.body.secret, now));
      assert.ok(!verifyWebhookSignature(received[1].signature, received[1].body.replace('DECLINED', 'SUCCEEDED'), endpoint.body.secret, now));
      const event = JSON.parse(received[1].body);
      assert.deepEqual([event.type, event.data.id, event.data.status], ['payment.declined', r.body.id, 'DECLINED']);
      const s = await getStack();
      const stored = await s.db.collection('domain_events').findOne({ _id: `payment.declined:${r.body.id}` as never });
      assert.equal(stored?.type, 'payment.declined');
      assert.equal((stored?.payload as any).response_code, 'INSUFFICIENT_FUNDS');
      assert.equal(stored?.payment_id, r.body.id);
    } finally {
      server.close();
    }
  });

  it('keeps test PANs and CVVs out of MongoDB, logs and workflow history', async function () {
    this.timeout(90_000);
    const s = await getStack();
    // An API whose logs are captured at the most verbose level.
    let logs = '';
    const sink = new Writable({ write(chunk, _enc, done) { logs += chunk.toString(); done(); } });
    const api = await startApi({ config: s.config, db: s.db, keyring: s.keyring, temporal: s.temporal, logger: createLogger('trace', 'scan', sink) });
    const cvv = '9173';
    try {
      const m = await newMerchant();
      const ids: string[] = [];
      for (const card of [TEST_CARDS.approved, TEST_CARDS.doNotHonor, TEST_CARDS.stolen]) {
        const r = await call('/v1/payments', { body: { account_id: m.account_id, description: 'scan', country: 'CO', merchant_order_id: `scan-${ids.length}-${m.account_id.slice(0, 8)}`, amount: { currency: 'USD', value: 5 }, payment_method: { type: 'CARD', detail: { card: { number: card, holder_name: 'SCAN', expiration_month: 5, expiration_year: 2033, security_code: cvv } } } }, credentials: m }, api.url);
        assert.equal(r.status, 201, r.text);
        ids.push(r.body.id);
        assert.ok(!r.text.includes(card));
      }
      const bad = await call('/v1/payments', { body: { account_id: m.account_id, description: 'scan', country: 'CO', merchant_order_id: 'scan-bad', amount: { currency: 'USD', value: 5 }, payment_method: { type: 'CARD', detail: { card: { number: '4111111111111113', holder_name: 'X', expiration_month: 13, expiration_year: 2033, security_code: cvv } } } }, credentials: m }, api.url);
      assert.equal(bad.status, 400);
      const pans = [...Object.values(TEST_CARDS), '4111111111111113'];
      const secrets = [...pans, `"${cvv}"`, `"${TEST_CVV}"`];

      for (const { name } of await s.db.listCollections().toArray()) {
        const text = JSON.stringify(await s.db.collection(name).find({}).toArray());
        for (const secret of secrets) assert.ok(!text.includes(secret), `collection ${name} holds ${secret}`);
      }
      const card = await s.db.collection('vault_cards').findOne({});
      assert.match(String(card?.pan_sealed), /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      assert.equal(card?.key_id, s.keyring.activeKeyId);

      assert.ok(logs.length > 0, 'the trace logger wrote something');
      for (const secret of secrets) assert.ok(!logs.includes(secret), `logs hold ${secret}`);

      for (const id of ids) {
        const history = await s.temporal.workflowService.getWorkflowExecutionHistory({ namespace: s.config.temporalNamespace, execution: { workflowId: `payment-${id}` } });
        const raw = Buffer.from(JSON.stringify(history.history?.events ?? [], (_k, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)));
        assert.ok((history.history?.events ?? []).length > 5);
        for (const secret of [...pans, cvv]) assert.equal(raw.indexOf(Buffer.from(secret)), -1, `history of ${id} holds ${secret}`);
      }
    } finally {
      await api.close();
    }
  });
});
