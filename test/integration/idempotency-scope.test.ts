import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { createLogger } from '../../activities/runtime/logger';
import { startApi } from '../../api/server';
import { PROCESS_GONE_MS } from '../../api/middleware/idempotency';
import { campaignWorkflowId } from '../../workflows/campaign';
import { uuidFromKey } from '../../domain/ids';
import { call, getStack, newMerchant, testConfig } from '../support/stack';
import { chargesFor, pay } from '../support/payments';

function campaignBody(merchant: { account_id: string; organization_code: string }) {
  return { name: 'Win back', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' };
}

describe('idempotency keys: scoped per operation, bounded, never skipping an operation', function () {
  this.timeout(60_000);

  it('the key that created a payment, sent again on its capture, captures (one key per organization and operation)', async () => {
    const m = await newMerchant();
    const key = randomUUID();
    const created = await pay(m, TEST_CARDS.approved, { capture: false }, { 'x-idempotency-key': key });
    assert.equal(created.status, 201);
    assert.equal(created.body.sub_status, 'AUTHORIZED');
    const capture = await call(`/v1/payments/${created.body.id}/capture`, { body: {}, credentials: m, headers: { 'x-idempotency-key': key } });
    assert.equal(capture.status, 200, capture.text);
    assert.equal(capture.headers.get('idempotent-replayed'), null);
    assert.equal(capture.body.sub_status, 'CAPTURED');
    // Within one operation the key still replays.
    const again = await call(`/v1/payments/${created.body.id}/capture`, { body: {}, credentials: m, headers: { 'x-idempotency-key': key } });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const recreated = await pay(m, TEST_CARDS.approved, { capture: false }, { 'x-idempotency-key': key });
    assert.equal(recreated.body.id, created.body.id);
    assert.equal(recreated.headers.get('idempotent-replayed'), 'true');
  });

  it('a payment whose key record is gone is never run again: a retry answers with it, the acquirer sees one attempt', async () => {
    const stack = await getStack();
    const m = await newMerchant();
    for (const card of [TEST_CARDS.approved, TEST_CARDS.stolen]) {
      const key = randomUUID();
      const first = await pay(m, card, {}, { 'x-idempotency-key': key });
      assert.equal(first.status, 201, first.text);
      const attempts = (await chargesFor(first.body.id)).length;
      await stack.db.collection('idempotency_keys').deleteMany({ organization_code: m.organization_code });
      const again = await pay(m, card, {}, { 'x-idempotency-key': key });
      assert.equal(again.status, 201, again.text);
      assert.deepEqual([again.body.id, again.body.status], [first.body.id, first.body.status]);
      assert.equal((await chargesFor(first.body.id)).length, attempts);
    }
  });

  it('a campaign created with a key is the same campaign when the key is sent again after its record is gone', async () => {
    const stack = await getStack();
    const m = await newMerchant();
    const key = randomUUID();
    const first = await call('/v1/campaigns', { body: campaignBody(m), credentials: m, headers: { 'x-idempotency-key': key } });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.id, uuidFromKey('campaign', m.organization_code, key));
    // As if the lock had expired while the first request was still waiting on the workflow.
    await stack.db.collection('idempotency_keys').deleteMany({ organization_code: m.organization_code });
    const second = await call('/v1/campaigns', { body: campaignBody(m), credentials: m, headers: { 'x-idempotency-key': key } });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.id, first.body.id);
    const list = await call('/v1/campaigns', { credentials: m });
    assert.equal(list.body.data.length, 1);
  });

  it('with no worker, a campaign creation answers 503 within the bounded wait and its retry joins the same workflow', async () => {
    const stack = await getStack();
    const m = await newMerchant();
    const api = await startApi({ config: testConfig({ taskQueue: `idle-${randomUUID()}`, lifecycleSyncWaitMs: 1_500 }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
    const key = randomUUID();
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const started = Date.now();
        const answer = await call('/v1/campaigns', { body: campaignBody(m), credentials: m, headers: { 'x-idempotency-key': key } }, api.url);
        assert.equal(answer.status, 503, answer.text);
        assert.match(answer.text, /retry it with the same X-Idempotency-Key/);
        assert.ok(Date.now() - started < 10_000);
      }
      const runs: string[] = [];
      for await (const wf of stack.temporal.workflow.list({ query: `WorkflowType = 'campaignWorkflow' AND OrganizationCode = '${m.organization_code}'` })) runs.push(wf.workflowId);
      assert.deepEqual(runs, [campaignWorkflowId(uuidFromKey('campaign', m.organization_code, key))]);
    } finally {
      await api.close();
      await stack.temporal.workflow.getHandle(campaignWorkflowId(uuidFromKey('campaign', m.organization_code, key))).terminate('test cleanup').catch(() => undefined);
    }
  });

  it('a key held by a live API process answers REQUEST_IN_PROCESS; one held by a process that is gone is taken over at once', async () => {
    const stack = await getStack();
    const m = await newMerchant();
    const other = await startApi({ config: testConfig(), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
    const keys = stack.db.collection('idempotency_keys');
    const lock = (key: string, holder: string) =>
      keys.insertOne({ _id: `${m.organization_code}:POST /v1/pings:${key}` as never, organization_code: m.organization_code, request_hash: 'x', state: 'open', holder, created_at: new Date(), expires_at: new Date(Date.now() + 86_400_000) });
    const ping = (key: string) => call('/v1/pings', { body: { message: 'hello' }, credentials: m, headers: { 'x-idempotency-key': key } });

    const heldByLive = randomUUID();
    await lock(heldByLive, other.processId);
    const blocked = await ping(heldByLive);
    assert.equal(blocked.status, 400);
    assert.equal(blocked.body.code, 'REQUEST_IN_PROCESS');

    // A crashed process: never seen, or not seen for longer than PROCESS_GONE_MS.
    const heldByGone = randomUUID();
    await lock(heldByGone, randomUUID());
    const takenOver = await ping(heldByGone);
    assert.equal(takenOver.status, 201, takenOver.text);
    const stale = randomUUID();
    await stack.db.collection('api_processes').insertOne({ _id: stale as never, seen_at: new Date(Date.now() - PROCESS_GONE_MS - 1_000) });
    const heldByStale = randomUUID();
    await lock(heldByStale, stale);
    assert.equal((await ping(heldByStale)).status, 201);

    // A process that shuts down cleanly frees its locks at once.
    await other.close();
    const freed = await ping(heldByLive);
    assert.equal(freed.status, 201, freed.text);
  });
});
