/**
 * The two features together on the real stack: a payment declined by the sandbox acquirer
 * stores its payment.declined event, and the campaign trigger turns it into one
 * communication for the matching ACTIVE campaign.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { campaignEventWorkflowId } from '../../workflows/campaign-trigger';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { pay } from '../support/payments';

describe('campaigns fed by real declined payments (integration)', function () {
  this.timeout(120_000);

  it('a soft-declined card payment triggers exactly one WhatsApp message', async () => {
    const stack = await getStack();
    const merchant = await newMerchant('Declines to campaigns');
    const campaign = await call('/v1/campaigns', {
      body: { name: 'Retry your card', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' },
      credentials: merchant,
    });
    assert.equal(campaign.status, 201, campaign.text);
    const rules = await call(`/v1/campaigns/${campaign.body.id}/rules`, {
      body: {
        rules: [
          { rule_type: 'PAYMENT_STATUS', conditional: 'EQUAL', values: ['DECLINED'] },
          { rule_type: 'RESPONSE_CODE', conditional: 'ONE_OF', values: ['INSUFFICIENT_FUNDS', 'DO_NOT_HONOR'] },
          { rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['400000'] },
          { rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'GREATER_THAN', values: ['10', 'USD'] },
          { rule_type: 'UNIQUE_BY_USER' },
        ],
      },
      credentials: merchant,
    });
    assert.equal(rules.status, 201, rules.text);

    const userId = `user-${randomUUID()}`;
    const payment = await pay(merchant, TEST_CARDS.insufficientFunds, {
      customer_payer: { first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', phone: { country_code: '57', number: '3001234567' } },
      metadata: [{ key: 'user_id', value: userId }],
    });
    assert.equal(payment.status, 201, payment.text);
    assert.equal(payment.body.status, 'DECLINED');

    const eventId = `payment.declined:${payment.body.id}`;
    let handle = stack.temporal.workflow.getHandle(campaignEventWorkflowId(eventId));
    for (let i = 0; i < 100; i++) {
      if (await handle.describe().then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
      handle = stack.temporal.workflow.getHandle(campaignEventWorkflowId(eventId));
    }
    const results = (await handle.result()) as Array<{ campaign_id: string; outcome: string }>;
    assert.deepEqual(results.filter((r) => r.campaign_id === campaign.body.id).map((r) => r.outcome), ['SENT']);

    const sent = await call(`/v1/campaigns/${campaign.body.id}/communications`, { credentials: merchant });
    assert.equal(sent.body.data.length, 1);
    assert.equal(sent.body.data[0].channel, 'WHATSAPP_MESSAGE');
    assert.deepEqual(sent.body.data[0].recipient, { phone_last_digits: '4567' });

    // A second decline of the same user is stopped by UNIQUE_BY_USER.
    const again = await pay(merchant, TEST_CARDS.insufficientFunds, { metadata: [{ key: 'user_id', value: userId }], customer_payer: { first_name: 'Ana', phone: { country_code: '57', number: '3001234567' } } });
    assert.equal(again.body.status, 'DECLINED');
    const second = stack.temporal.workflow.getHandle(campaignEventWorkflowId(`payment.declined:${again.body.id}`));
    for (let i = 0; i < 100 && !(await second.describe().then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 200));
    const secondResults = (await second.result()) as Array<{ campaign_id: string; outcome: string }>;
    assert.notDeepEqual(secondResults.filter((r) => r.campaign_id === campaign.body.id).map((r) => r.outcome), ['SENT']);
    assert.equal((await call(`/v1/campaigns/${campaign.body.id}/communications`, { credentials: merchant })).body.data.length, 1);
  });
});
