/**
 * The embedded FerretDB (SQLite backend) pushes only a filter that is exactly `{ _id }` down to
 * SQL: any other filter (even `{ _id, organization_code }`) reads and decodes the whole
 * collection, so its cost grows with stored data. The
 * request and lifecycle paths a checkout or a CI run waits on must therefore reach MongoDB by
 * `_id` (ids derived from what the caller sent); scans belong to lists, reports and
 * housekeeping. This test drives those paths against the real stack and lists every command
 * that touched this test's data with a filter that is not keyed by `_id`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { backfillRoutingVersions, createRule, resolveRoute } from '../../activities/repositories/routing';
import { backfillLatestDryRunPayments, pairingWorkflowId } from '../../activities/repositories/dry-run';
import { call, getStack, newMerchant } from '../support/stack';
import { pay, waitForPayment } from '../support/payments';
import { dryRunPay, paymentFor, register, registrationBody, uniqueReference, waitForRegistration } from '../support/dry-run';

const FILTERED = new Set(['find', 'update', 'delete', 'findAndModify', 'count', 'aggregate', 'distinct']);

interface Seen {
  command: string;
  collection: string;
  filter: unknown;
}

/** The filters of one command: find/count/distinct `query`|`filter`, update/delete statements. */
function filtersOf(event: CommandStartedEvent): unknown[] {
  const c = event.command as Record<string, any>;
  switch (event.commandName) {
    case 'find': return [c.filter ?? {}];
    case 'count': case 'distinct': return [c.query ?? {}];
    case 'findAndModify': return [c.query ?? {}];
    case 'update': return (c.updates ?? []).map((u: any) => u.q);
    case 'delete': return (c.deletes ?? []).map((d: any) => d.q);
    case 'aggregate': return [(c.pipeline ?? []).find((stage: any) => stage.$match)?.$match ?? {}];
    default: return [];
  }
}

/**
 * Keyed: exactly `{ _id: <value> }`, the one filter FerretDB's SQLite backend answers without
 * reading the collection (a further condition, even beside _id, or an `$in`, is a scan).
 */
function keyedById(filter: unknown): boolean {
  const { _id: id, ...rest } = (filter as Record<string, unknown> | null) ?? {};
  if (id === undefined || (id !== null && typeof id === 'object' && !(id instanceof Date))) return false;
  // Read models replaced only by a newer version use { _id, version: { $lt } } on MongoDB
  // alone; on FerretDB (which this suite runs on) replaceIfNewer keys every step by _id.
  return Object.keys(rest).length === 0;
}

describe('query shapes: the paths a checkout and a dry-run wait on reach MongoDB by _id', function () {
  this.timeout(120_000);

  it('payments (create, capture, refund, read) and dry-run (register, pair, report, read) use no scanning filter', async () => {
    const s = await getStack();
    const m = await newMerchant();
    const seen: Seen[] = [];
    const listener = (event: CommandStartedEvent) => {
      if (!FILTERED.has(event.commandName)) return;
      const collection = String((event.command as Record<string, unknown>)[event.commandName]);
      for (const filter of filtersOf(event)) seen.push({ command: event.commandName, collection, filter });
    };
    s.mongo.client.on('commandStarted', listener);
    const ours: string[] = [m.organization_code, m.account_id];
    try {
      const authorized = await pay(m, TEST_CARDS.approved, { capture: false, amount: { currency: 'USD', value: 20 } });
      assert.equal(authorized.status, 201, authorized.text);
      ours.push(authorized.body.id);
      const captured = await call(`/v1/payments/${authorized.body.id}/capture`, { body: {}, credentials: m, headers: { 'x-idempotency-key': randomUUID() } });
      assert.equal(captured.status, 200, captured.text);
      const refunded = await call(`/v1/payments/${authorized.body.id}/refunds`, { body: { amount: 5 }, credentials: m, headers: { 'x-idempotency-key': randomUUID() } });
      assert.equal(refunded.status, 201, refunded.text);
      await waitForPayment(m, authorized.body.id, (p) => p.amount.refunded === 5);

      const reference = uniqueReference('shape');
      ours.push(reference);
      const registered = await register(m, registrationBody(reference));
      assert.equal(registered.status, 201, registered.text);
      ours.push(registered.body.id);
      const dryRun = await dryRunPay(m, paymentFor(m, reference));
      assert.equal(dryRun.status, 201, dryRun.text);
      ours.push(dryRun.body.id);
      const report = await waitForRegistration(m, registered.body.id, (r) => r.status === 'VALIDATED');
      assert.equal(report.status, 'VALIDATED');
    } finally {
      s.mongo.client.off('commandStarted', listener);
    }
    const touchesOurs = (filter: unknown) => ours.some((id) => JSON.stringify(filter).includes(id));
    const scanning = seen.filter((q) => touchesOurs(q.filter) && !keyedById(q.filter));
    assert.ok(seen.some((q) => touchesOurs(q.filter)), 'the command monitor saw the paths run');
    assert.deepEqual(
      scanning.map((q) => `${q.command} ${q.collection} ${JSON.stringify(q.filter)}`),
      [],
      'filters not keyed by _id on a hot path',
    );
  });
});

describe('derived documents: data stored before them keeps working', function () {
  this.timeout(60_000);

  it('a routing rule stored without a routing version still routes once the process starts (backfill), and a change is seen at once', async () => {
    const s = await getStack();
    const m = await newMerchant();
    const facts = { country: 'CO', paymentMethodType: 'CARD', currency: 'USD', amount: 10, cardBrand: 'VISA', iin: '41111111' };
    // As an older release stored it: a rule that routes nowhere but an unknown connection, no version document.
    await s.db.collection('routing_rules').insertOne({ _id: randomUUID() as never, organization_code: m.organization_code, account_id: m.account_id, name: 'legacy rule', priority: 1, conditions: { currencies: ['EUR'] }, connection_ids: ['default-sandbox-1'], created_at: new Date() });
    const before = await resolveRoute(s.db, m.account_id, facts);
    assert.equal(before?.length, 2, 'without a version the account reads as rule-less (the default route)');
    assert.equal(await backfillRoutingVersions(s.db) >= 1, true);
    assert.equal(await resolveRoute(s.db, m.account_id, facts), null, 'the legacy rule applies: a USD payment matches no rule');
    await createRule(s.db, m.organization_code, m.account_id, { name: 'usd rule', priority: 0, connection_ids: ['default-sandbox-2'], conditions: { currencies: ['USD'] } } as never);
    assert.deepEqual((await resolveRoute(s.db, m.account_id, facts))?.map((c) => c.connectionId), ['default-sandbox-2'], 'a new rule is seen by the next payment');
  });

  it('a dry-run payment stored without its pointer still pairs with a later registration (backfill)', async () => {
    const s = await getStack();
    const m = await newMerchant();
    const reference = uniqueReference('legacy');
    const dryRun = await dryRunPay(m, paymentFor(m, reference));
    assert.equal(dryRun.status, 201, dryRun.text);
    // Its pairing run ends (as after the pairing window), so the registration starts a fresh run
    // that must find the payment by reference.
    await s.temporal.workflow.getHandle(pairingWorkflowId(m.account_id, reference)).terminate('test: the pairing run is over');
    await s.db.collection('dry_run_latest_payments').deleteMany({ payment_id: dryRun.body.id });
    await s.db.collection('migrations').deleteOne({ _id: '2026-11-22-dry-run-latest-payments' as never });
    assert.equal(await backfillLatestDryRunPayments(s.db) >= 1, true);
    const registered = await register(m, registrationBody(reference));
    assert.equal(registered.status, 201, registered.text);
    const report = await waitForRegistration(m, registered.body.id, (r) => r.status === 'VALIDATED');
    assert.equal(report.pairing.service_leg_id, dryRun.body.id);
    assert.equal(report.report.verdict, 'PASS', JSON.stringify(report.report.findings));
  });
});
