/**
 * An operator finds any resource's workflow by the id the API answered: every lifecycle
 * carries ResourceId = the public id (search attribute), and its workflow id contains it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, TestStack } from '../support/stack';
import { paymentBody } from '../support/payments';
import { onboardingBody, recipientBody } from '../support/recipients';
import { paymentFor, registrationBody, uniqueReference } from '../support/dry-run';

describe('workflows found by the public id of their resource (integration)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let merchant: IssuedCredentials;

  /** Workflow ids listed for `ResourceId = id` (visibility is eventually consistent). */
  async function workflowsOf(id: string, type: string): Promise<string[]> {
    let found: string[] = [];
    for (let i = 0; i < 75 && !found.length; i++) {
      found = [];
      for await (const wf of stack.temporal.workflow.list({ query: `ResourceId = '${id}' AND ResourceType = '${type}'` })) found.push(wf.workflowId);
      if (!found.length) await new Promise((r) => setTimeout(r, 200));
    }
    return found;
  }

  async function expectFound(id: string, type: string, idContains = id): Promise<string> {
    const found = await workflowsOf(id, type);
    assert.equal(found.length, 1, `${type} ${id}: ${JSON.stringify(found)}`);
    assert.ok(found[0].includes(idContains), `${type}: workflow id ${found[0]} does not contain ${idContains}`);
    return found[0];
  }

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await call(path, { body, credentials: merchant, headers });
    assert.ok(response.status >= 200 && response.status < 300, `${path}: ${response.status} ${response.text}`);
    return response.body;
  };

  before(async () => {
    stack = await getStack();
    merchant = await newMerchant('Lookup merchant');
  });

  it('a banking transfer, by its transfer id (not only by its idempotency key)', async () => {
    const source = await post('/v1/banking/accounts', { account_id: merchant.account_id, provider: 'SANDBOX_BANK', currency: 'USD', region: 'US' });
    const transfer = await post('/v1/banking/transfers', {
      account_id: merchant.account_id, source_account_id: source.id, direction: 'OUTGOING', amount: { value: 20, currency: 'USD' }, payment_rail: 'RTP',
      destination_account: { account_number: '123456789012', routing_number: '021000021', account_name: 'Jane Payee', bank_name: 'Chase' },
    }, { 'x-idempotency-key': randomUUID() });
    assert.equal(await expectFound(transfer.id, 'banking_transfer'), `banking-transfer-${transfer.id}`);
  });

  it('payments, reports, campaigns, unreferenced refunds and dry-run registrations', async () => {
    const payment = await post('/v1/payments', paymentBody(merchant, TEST_CARDS.approved));
    assert.equal(await expectFound(payment.id, 'payment'), `payment-${payment.id}`);

    for (const headers of [{}, { 'x-idempotency-key': randomUUID() }] as Array<Record<string, string>>) {
      const report = await post('/v1/reports', { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }, headers);
      assert.equal(await expectFound(report.id, 'report'), `report-${report.id}`);
    }

    const campaign = await post('/v1/campaigns', { name: 'Lookup', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' });
    await expectFound(campaign.id, 'campaign');

    const refund = await post('/v1/refunds/unreferenced', {
      account_id: merchant.account_id, merchant_order_id: 'lookup-1', description: 'Goodwill credit', country: 'CO', amount: { value: 5, currency: 'USD' },
      payment_method: { detail: { card: { card_data: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, brand: 'VISA', type: 'CREDIT', security_code: '737' } } } },
    }, { 'x-idempotency-key': randomUUID() });
    await expectFound(refund.id, 'unreferenced_refund');

    // A dry-run pairing is keyed by its merchant_reference; the registration id is ResourceId,
    // whichever leg came first (the payment leg starts the workflow before the registration exists).
    const first = uniqueReference('lookup');
    const registration = await post('/v1/dry-run/provider-events', registrationBody(first));
    await expectFound(registration.id, 'dry_run', first);
    const later = uniqueReference('lookup');
    await post('/v1/payments', paymentFor(merchant, later, { merchant_reference: later }), { 'Dry-run': 'true' });
    const lateRegistration = await post('/v1/dry-run/provider-events', registrationBody(later));
    await expectFound(lateRegistration.id, 'dry_run', later);
  });

  it('recipients and onboardings, split transfers and subscriptions with their payments', async () => {
    const recipient = await post('/v1/recipients', recipientBody(merchant));
    const onboarding = await post(`/v1/recipients/${recipient.id}/onboardings`, onboardingBody(merchant));
    const onboardingWorkflow = await expectFound(onboarding.id, 'onboarding');
    assert.ok(onboardingWorkflow.startsWith(`onboarding-${recipient.id}-`), `a recipient's onboardings are found by its id: ${onboardingWorkflow}`);
    const ofRecipient: string[] = [];
    for await (const wf of stack.temporal.workflow.list({ query: `WorkflowId STARTS_WITH 'onboarding-${recipient.id}'` })) ofRecipient.push(wf.workflowId);
    assert.deepEqual(ofRecipient, [onboardingWorkflow]);

    await post('/v1/balances/top-ups', { amount: { value: 50, currency: 'USD' }, description: 'sandbox funding' }, { 'x-idempotency-key': randomUUID() });
    const transfer = await post('/v1/split-marketplace/transfers', {
      account_id: merchant.account_id, recipient_id: recipient.id, provider_id: 'SANDBOX', amount: { value: 10, currency: 'USD' }, description: 'Seller payout', merchant_reference: `payout-${randomUUID()}`,
    }, { 'x-idempotency-key': randomUUID() });
    await expectFound(transfer.id, 'split_transfer');

    const customer = await post('/v1/customers', { merchant_customer_id: `c-${randomUUID()}`, first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', country: 'CO' });
    const session = await post('/v1/customers/sessions', { account_id: merchant.account_id, customer_id: customer.id, country: 'CO', callback_url: 'https://shop.example/enrolled' });
    const enrolled = await post(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, { type: 'CARD', card: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031 } });
    await expectFound(enrolled.vaulted_token, 'payment_method');
    const subscription = await post('/v1/subscriptions', {
      name: 'Gold plan', account_id: merchant.account_id, country: 'CO', amount: { currency: 'USD', value: 9.99 },
      payment_method: { type: 'CARD', vaulted_token: enrolled.vaulted_token }, customer_payer: { id: customer.id },
      frequency: { type: 'MONTH', value: 1 }, billing_cycles: { total: 2 },
    });
    await expectFound(subscription.id, 'subscription');
    let charged: { payment_id: string } | undefined;
    for (let i = 0; i < 100 && !charged; i++) {
      charged = (await call(`/v1/subscriptions/${subscription.id}`, { credentials: merchant })).body.charges?.[0];
      if (!charged) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(charged, 'the subscription charged nothing');
    await expectFound(charged!.payment_id, 'payment');
    await stack.temporal.workflow.getHandle(`subscription-${subscription.id}`).terminate('test cleanup').catch(() => undefined);
  });
});
