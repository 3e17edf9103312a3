import assert from 'node:assert/strict';
import type { IssuedCredentials } from '../../domain/credentials';
import { owePairingSignal, pairingSignals, pairingWorkflowId, referenceClaims, referenceKey, registrations } from '../../activities/repositories/dry-run';
import { newRegistrationId } from '../../api/routers/dry-run';
import { getStack, newMerchant, TestStack } from '../support/stack';
import { dryRunPay, getRegistration, paymentFor, register, registrationBody, uniqueReference, waitForRegistration } from '../support/dry-run';

/** Waits until `check` holds (polling), or fails with `what`. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('dry-run pairing signals (stored, then delivered off the request path)', function () {
  this.timeout(90_000);
  let stack: TestStack;
  let merchant: IssuedCredentials;

  before(async () => {
    stack = await getStack();
    merchant = await newMerchant('Dry-run outbox merchant');
  });

  it('a registration answers once stored; its signal is delivered and deleted', async () => {
    const reference = uniqueReference('ob');
    const reg = await register(merchant, registrationBody(reference));
    assert.equal(reg.status, 201);
    await eventually('the owed signal is delivered and deleted', async () => (await pairingSignals(stack.db).countDocuments({ _id: `registration:${reg.body.id}` })) === 0);
    const described = await stack.temporal.workflow.getHandle(pairingWorkflowId(merchant.account_id, reference)).describe();
    assert.deepEqual(described.searchAttributes.ResourceId, [reg.body.id]);
    await dryRunPay(merchant, paymentFor(merchant, reference));
    const done = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
    assert.equal(done.report.version, 1);
  });

  it('a signal left owed by an API process that stopped is delivered by the sweep of another', async () => {
    // What a process that stopped between storing and delivering leaves: the registration,
    // its reference claim and the owed signal, whose claim has lapsed; no workflow.
    const template = await register(merchant, registrationBody(uniqueReference('tpl')));
    const stored = (await registrations(stack.db).findOne({ _id: template.body.id }))!;
    const reference = uniqueReference('crash');
    const id = newRegistrationId();
    const now = new Date();
    await referenceClaims(stack.db).insertOne({ _id: referenceKey(merchant.account_id, reference), registration_id: id, organization_code: stored.organization_code, created_at: now });
    await registrations(stack.db).insertOne({ ...stored, _id: id, merchant_reference: reference, workflow_id: pairingWorkflowId(merchant.account_id, reference), created_at: now, updated_at: now });
    await owePairingSignal(stack.db, {
      _id: `registration:${id}`, organization_code: stored.organization_code, account_id: merchant.account_id, merchant_reference: reference,
      leg: { kind: 'registration', id }, initial_status: 'REGISTERED', created_at: new Date(now.getTime() - 60_000), claimed_until: new Date(now.getTime() - 1_000),
    });
    await eventually('the sweep delivers the lapsed signal', async () => (await pairingSignals(stack.db).countDocuments({ _id: `registration:${id}` })) === 0);
    const described = await stack.temporal.workflow.getHandle(pairingWorkflowId(merchant.account_id, reference)).describe();
    assert.deepEqual(described.searchAttributes.ResourceId, [id]);
    await dryRunPay(merchant, paymentFor(merchant, reference));
    const done = await waitForRegistration(merchant, id, (r) => r.status === 'VALIDATED');
    assert.equal(done.report.version, 1);
  });

  it('a signal delivered twice changes nothing: one report version, one report_ready event', async () => {
    const reference = uniqueReference('dup');
    const reg = await register(merchant, registrationBody(reference));
    await dryRunPay(merchant, paymentFor(merchant, reference));
    await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
    const readyEvents = () => stack.db.collection('webhook_event_stream').countDocuments({ event_type: 'dry_run.report_ready', resource_id: reg.body.id });
    await eventually('the first report_ready event is recorded', async () => (await readyEvents()) === 1);
    // The same leg owed again (a sweep racing a slow delivery): delivered a second time.
    await owePairingSignal(stack.db, {
      _id: `registration:${reg.body.id}`, organization_code: (await registrations(stack.db).findOne({ _id: reg.body.id }))!.organization_code, account_id: merchant.account_id,
      merchant_reference: reference, leg: { kind: 'registration', id: reg.body.id }, initial_status: 'REGISTERED', created_at: new Date(), claimed_until: new Date(Date.now() - 1_000),
    });
    await eventually('the duplicate is delivered', async () => (await pairingSignals(stack.db).countDocuments({ _id: `registration:${reg.body.id}` })) === 0);
    await new Promise((r) => setTimeout(r, 1_500)); // room for any re-validation it would wrongly cause
    const after = await getRegistration(merchant, reg.body.id);
    assert.equal(after.body.status, 'VALIDATED');
    assert.equal(after.body.report.version, 1);
    assert.equal(await readyEvents(), 1);
  });
});
