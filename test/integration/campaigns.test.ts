/**
 * Campaigns on the real stack: API over HTTP, campaign workflows on Temporal, FerretDB,
 * and the declined-payment trigger fed by documents inserted into domain_events.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createCampaignActivities } from '../../activities/campaigns';
import { createLogger } from '../../activities/runtime/logger';
import { startWorker, RunningWorker } from '../../activities/worker';
import { openString } from '../../domain/crypto';
import type { IssuedCredentials } from '../../domain/credentials';
import { campaignEventWorkflowId } from '../../workflows/campaign-trigger';
import { campaignWorkflowId } from '../../workflows/campaign';
import { call, getStack, newMerchant, TestStack, errorBody } from '../support/stack';

const MISSING = '5d0c4c8e-7d0a-4c39-9d43-1d2f7f7b9a11';

function campaignBody(merchant: IssuedCredentials, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Win back declined cards',
    account_id: merchant.account_id,
    organization_code: merchant.organization_code,
    country: 'CO',
    channel: 'WHATSAPP_MESSAGE',
    focus: 'retention',
    ...overrides,
  };
}

async function createCampaign(merchant: IssuedCredentials, overrides: Record<string, unknown> = {}) {
  const response = await call('/v1/campaigns', { body: campaignBody(merchant, overrides), credentials: merchant });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

async function addRules(merchant: IssuedCredentials, campaignId: string, rules: unknown[]) {
  const response = await call(`/v1/campaigns/${campaignId}/rules`, { body: { rules }, credentials: merchant });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.rules as Array<{ id: string; status: string }>;
}

function patch(path: string, body: unknown, credentials: IssuedCredentials) {
  return call(path, { method: 'PATCH', body, credentials });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('campaigns (integration)', function () {
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Campaign merchant');
    other = await newMerchant('Other campaign merchant');
  });

  /** Inserts a payment.declined event the way the payments feature stores it. */
  async function declined(owner: IssuedCredentials, payload: Record<string, unknown> = {}, occurredAt = new Date()) {
    const eventId = randomUUID();
    await stack.db.collection('domain_events').insertOne({
      _id: eventId as never,
      type: 'payment.declined',
      organization_code: owner.organization_code,
      account_id: owner.account_id,
      payment_id: randomUUID(),
      occurred_at: occurredAt,
      payload: {
        amount: { value: 120.5, currency: 'COP' },
        status: 'DECLINED',
        sub_status: 'REJECTED',
        payment_method_type: 'CARD',
        provider_id: 'SANDBOX',
        card_bin: '45130300',
        response_code: 'INSUFFICIENT_FUNDS',
        iso_response_code: '51',
        category: 'CARD',
        metadata: [{ key: 'user_id', value: 'user-1' }],
        customer: { id: randomUUID(), phone: '+573001234567' },
        ...payload,
      },
    });
    return eventId;
  }

  /** The outcome of the trigger for one event, once its workflow has finished. */
  async function processed(eventId: string): Promise<Array<{ campaign_id: string; outcome: string; reason: string }>> {
    const handle = stack.temporal.workflow.getHandle(campaignEventWorkflowId(eventId));
    await waitFor(`the trigger to claim ${eventId}`, () => handle.describe().then(() => true, (e) => (e instanceof WorkflowNotFoundError ? false : Promise.reject(e))));
    return handle.result();
  }

  async function communications(campaignId: string, credentials = merchant) {
    const response = await call(`/v1/campaigns/${campaignId}/communications`, { credentials });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.data as Array<Record<string, any>>;
  }

  describe('create, read, list', () => {
    it('creates an ACTIVE campaign with the X- header spelling and reads it back with its rules', async () => {
      const response = await call('/v1/campaigns', {
        body: campaignBody(merchant, {
          schedule: { daily_start_time: '08:00', daily_end_time: '20:00', time_zone: 'America/Bogota' },
          duration: { start_at: '2026-01-01T00:00:00Z', end_at: '2099-01-01T00:00:00Z' },
        }),
        headers: { 'X-Public-Api-Key': merchant.public_api_key, 'X-Private-Secret-Key': merchant.private_secret_key },
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      const campaign = response.body;
      assert.match(campaign.id, /^[0-9a-f-]{36}$/);
      assert.equal(campaign.status, 'ACTIVE');
      assert.equal(campaign.organization_code, merchant.organization_code);
      assert.deepEqual(campaign.schedule, { daily_start_time: '08:00', daily_end_time: '20:00', time_zone: 'America/Bogota' });
      assert.equal(campaign.duration.end_at, '2099-01-01T00:00:00Z');
      assert.equal(campaign.rules, undefined);

      const rules = await addRules(merchant, campaign.id, [
        { rule_type: 'AMOUNT', conditional: 'GREATER_THAN', values: [100] },
        { rule_type: 'UNIQUE_BY_USER' },
      ]);
      assert.deepEqual(rules.map((r) => r.status), ['ACTIVE', 'ACTIVE']);
      const read = await call(`/v1/campaigns/${campaign.id}`, { credentials: merchant });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.rules.map((r: any) => [r.rule_type, r.conditional, r.values, r.campaign_id]), [
        ['AMOUNT', 'GREATER_THAN', ['100'], campaign.id],
        ['UNIQUE_BY_USER', null, [], campaign.id],
      ]);
      const rule = await call(`/v1/rules/${rules[0].id}`, { credentials: merchant });
      assert.equal(rule.body.id, rules[0].id);
      assert.equal(rule.body.status, 'ACTIVE');

      const description = await stack.temporal.workflow.getHandle(campaignWorkflowId(campaign.id)).describe();
      assert.equal(description.status.name, 'RUNNING');
      assert.deepEqual(description.searchAttributes.ResourceType, ['campaign']);
      assert.deepEqual(description.searchAttributes.AccountId, [merchant.account_id]);
      assert.deepEqual(description.searchAttributes.ResourceStatus, ['ACTIVE']);
    });

    it('400 for missing fields, a malformed schedule or time zone; 422 when end_at is not after start_at', async () => {
      const missing = await call('/v1/campaigns', { body: { name: 'x' }, credentials: merchant });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 400);
      assert.equal(typeof missing.body.message, 'string');
      assert.ok(missing.body.details.errors.some((e: any) => e.field === 'account_id' && e.code === 'REQUIRED'));
      const zone = await call('/v1/campaigns', { body: campaignBody(merchant, { schedule: { daily_start_time: '08:00', daily_end_time: '20:00', time_zone: 'Moon/Base' } }), credentials: merchant });
      assert.equal(zone.status, 400);
      assert.ok(zone.body.details.errors.some((e: any) => e.field === 'schedule.time_zone'));
      const hour = await call('/v1/campaigns', { body: campaignBody(merchant, { schedule: { daily_start_time: '24:00', daily_end_time: '20:00', time_zone: 'UTC' } }), credentials: merchant });
      assert.equal(hour.status, 400);
      const backwards = await call('/v1/campaigns', { body: campaignBody(merchant, { duration: { start_at: '2099-02-01T00:00:00Z', end_at: '2099-01-31T23:59:59Z' } }), credentials: merchant });
      assert.equal(backwards.status, 422);
      assert.equal(backwards.body.code, 422);
      assert.equal(backwards.body.details.errors[0].code, 'END_BEFORE_START');
      const equal = await call('/v1/campaigns', { body: campaignBody(merchant, { duration: { start_at: '2099-02-01T00:00:00Z', end_at: '2099-02-01T00:00:00Z' } }), credentials: merchant });
      assert.equal(equal.status, 422);
      const justAfter = await call('/v1/campaigns', { body: campaignBody(merchant, { duration: { start_at: '2099-02-01T00:00:00Z', end_at: '2099-02-01T00:00:01Z' } }), credentials: merchant });
      assert.equal(justAfter.status, 201);
    });

    it('replays a create and a rules call sent again with the same X-Idempotency-Key', async () => {
      const key = randomUUID();
      const first = await call('/v1/campaigns', { body: campaignBody(merchant), credentials: merchant, headers: { 'X-Idempotency-Key': key } });
      const again = await call('/v1/campaigns', { body: campaignBody(merchant), credentials: merchant, headers: { 'X-Idempotency-Key': key } });
      assert.equal(again.status, 201);
      assert.equal(again.body.id, first.body.id);
      const rulesKey = randomUUID();
      const rules = { rules: [{ rule_type: 'UNIQUE_BY_USER' }] };
      const r1 = await call(`/v1/campaigns/${first.body.id}/rules`, { body: rules, credentials: merchant, headers: { 'X-Idempotency-Key': rulesKey } });
      const r2 = await call(`/v1/campaigns/${first.body.id}/rules`, { body: rules, credentials: merchant, headers: { 'X-Idempotency-Key': rulesKey } });
      assert.deepEqual(r2.body, r1.body);
      assert.equal((await call(`/v1/campaigns/${first.body.id}`, { credentials: merchant })).body.rules.length, 1);
    });

    it("refuses another organization's code or account with 404", async () => {
      const foreignOrg = await call('/v1/campaigns', { body: campaignBody(merchant, { organization_code: other.organization_code }), credentials: merchant });
      assert.equal(foreignOrg.status, 404);
      const foreignAccount = await call('/v1/campaigns', { body: campaignBody(merchant, { account_id: other.account_id }), credentials: merchant });
      assert.equal(foreignAccount.status, 404);
      assert.equal(foreignAccount.body.code, 404);
    });

    it('lists with filters and cursor pagination, only the caller organization', async () => {
      const lister = await newMerchant('Lister');
      const created = [];
      for (const [channel, country] of [['PHONE_CALL', 'MX'], ['WHATSAPP_MESSAGE', 'MX'], ['PHONE_CALL', 'CO']]) {
        created.push(await createCampaign(lister, { channel, country }));
      }
      await patch(`/v1/campaigns/${created[0].id}/status`, { status: 'PAUSED' }, lister);
      await createCampaign(other, { channel: 'PHONE_CALL', country: 'MX' });

      const all = await call('/v1/campaigns?limit=2', { credentials: lister });
      assert.equal(all.status, 200);
      assert.deepEqual(all.body.data.map((c: any) => c.id), [created[2].id, created[1].id]);
      assert.ok(all.body.next_cursor);
      const second = await call(`/v1/campaigns?limit=2&cursor=${all.body.next_cursor}`, { credentials: lister });
      assert.deepEqual(second.body.data.map((c: any) => c.id), [created[0].id]);
      assert.equal(second.body.next_cursor, null);

      const phoneMx = await call('/v1/campaigns?channel=PHONE_CALL&country=MX', { credentials: lister });
      assert.deepEqual(phoneMx.body.data.map((c: any) => c.id), [created[0].id]);
      const paused = await call(`/v1/campaigns?status=PAUSED&account_id=${lister.account_id}`, { credentials: lister });
      assert.deepEqual(paused.body.data.map((c: any) => [c.id, c.status]), [[created[0].id, 'PAUSED']]);
      const foreignAccount = await call(`/v1/campaigns?account_id=${other.account_id}`, { credentials: lister });
      assert.deepEqual(foreignAccount.body.data, []);

      for (const bad of ['status=DONE', 'channel=SMS', 'country=mex', 'account_id=nope', 'limit=0', 'limit=101', 'limit=x', 'cursor=garbage']) {
        const response = await call(`/v1/campaigns?${bad}`, { credentials: lister });
        assert.equal(response.status, 400, bad);
        assert.equal(response.body.code, 400);
      }
      assert.equal((await call('/v1/campaigns?limit=100', { credentials: lister })).status, 200);
    });

    it('400 for a malformed campaign or rule id, 404 for a missing one', async () => {
      assert.equal((await call('/v1/campaigns/not-a-uuid', { credentials: merchant })).status, 400);
      assert.equal((await call('/v1/rules/not-a-uuid', { credentials: merchant })).status, 400);
      const missing = await call(`/v1/campaigns/${MISSING}`, { credentials: merchant });
      assert.equal(missing.status, 404);
      assert.deepEqual(errorBody(missing.body), { code: 404, message: 'campaign not found', details: { error_code: 'CAMPAIGN_NOT_FOUND' } });
      assert.equal((await call(`/v1/rules/${MISSING}`, { credentials: merchant })).status, 404);
    });
  });

  describe('rules', () => {
    let campaignId: string;
    before(async () => {
      campaignId = (await createCampaign(merchant)).id;
    });

    const post = (rules: unknown[]) => call(`/v1/campaigns/${campaignId}/rules`, { body: { rules }, credentials: merchant });

    it('422 for each table violation, at its boundary', async () => {
      const cases: Array<[unknown, number, string?]> = [
        [{ rule_type: 'COLOR', conditional: 'EQUAL', values: ['x'] }, 422, 'rules.0.rule_type'],
        [{ rule_type: 'CURRENCY', conditional: 'GREATER_THAN', values: ['USD'] }, 422, 'rules.0.conditional'],
        [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['USD'] }, 201],
        [{ rule_type: 'PROVIDER', conditional: 'CONTAINS', values: ['X'] }, 422],
        [{ rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['4513'] }, 201],
        [{ rule_type: 'AMOUNT', conditional: 'BETWEEN', values: [10, 20] }, 201],
        [{ rule_type: 'AMOUNT', conditional: 'BETWEEN', values: [10] }, 422, 'rules.0.values'],
        [{ rule_type: 'AMOUNT', conditional: 'BETWEEN', values: [10, 20, 30] }, 422, 'rules.0.values'],
        [{ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'BETWEEN', values: ['10', '20', 'COP'] }, 201],
        [{ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'BETWEEN', values: ['10', '20'] }, 422],
        [{ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'BETWEEN', values: ['10', '20', '30', 'COP'] }, 422],
        [{ rule_type: 'EQUAL_ME', values: [] }, 422],
        [{ rule_type: 'METADATA', conditional: 'CONTAINS', values: ['vip'] }, 422, 'rules.0.metadata_key'],
        [{ rule_type: 'METADATA', conditional: 'CONTAINS', values: ['vip'], metadata_key: 'segment' }, 201],
        [{ rule_type: 'USER_COMMS_PER_DAY', values: ['3'] }, 201],
        [{ rule_type: 'USER_COMMS_PER_DAY', values: ['3'], conditional: 'EQUAL' }, 422, 'rules.0.conditional'],
        [{ rule_type: 'USER_COMMS_PER_DAY', values: ['0'] }, 422],
        [{ rule_type: 'UNIQUE_BY_USER' }, 201],
        [{ rule_type: 'UNIQUE_BY_USER', values: ['1'] }, 422, 'rules.0.values'],
        [{ rule_type: 'UNIQUE_BY_USER', conditional: 'EQUAL' }, 422],
        [{ rule_type: 'RESPONSE_CODE', conditional: 'EQUAL', values: ['A', 'B'] }, 422],
        [{ rule_type: 'RESPONSE_CODE', conditional: 'ONE_OF', values: ['A', 'B'] }, 201],
        [{ rule_type: 'RESPONSE_CODE', conditional: 'IN', values: [] }, 422],
      ];
      for (const [rule, status, field] of cases) {
        const response = await post([rule]);
        assert.equal(response.status, status, `${JSON.stringify(rule)} -> ${JSON.stringify(response.body)}`);
        if (status === 422) {
          assert.equal(response.body.code, 422);
          if (field) assert.ok(response.body.details.errors.some((e: any) => e.field === field), JSON.stringify(response.body));
        }
      }
    });

    it('400 when the rules array or rule_type is missing', async () => {
      assert.equal((await call(`/v1/campaigns/${campaignId}/rules`, { body: {}, credentials: merchant })).status, 400);
      assert.equal((await post([])).status, 400);
      assert.equal((await post([{ values: ['1'] }])).status, 400);
    });

    it('creates several rules per call, all or nothing', async () => {
      const fresh = (await createCampaign(merchant)).id;
      const bad = await call(`/v1/campaigns/${fresh}/rules`, {
        body: { rules: [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['COP'] }, { rule_type: 'METADATA', conditional: 'EQUAL', values: ['x'] }] },
        credentials: merchant,
      });
      assert.equal(bad.status, 422);
      assert.equal((await call(`/v1/campaigns/${fresh}`, { credentials: merchant })).body.rules.length, 0);
      const good = await addRules(merchant, fresh, [
        { rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['COP'] },
        { rule_type: 'PAYMENT_METHOD', conditional: 'ONE_OF', values: ['CARD', 'CREDIT_CARD'] },
        { rule_type: 'ISO_RESPONSE_CODE', conditional: 'NOT_ONE_OF', values: ['05'] },
      ]);
      assert.equal(good.length, 3);
      assert.equal((await call(`/v1/campaigns/${fresh}`, { credentials: merchant })).body.rules.length, 3);
    });

    it('updates a rule (validated as a whole) and toggles its status', async () => {
      const [rule] = await addRules(merchant, campaignId, [{ rule_type: 'AMOUNT', conditional: 'GREATER_THAN', values: ['50'] }]);
      const changed = await patch(`/v1/rules/${rule.id}`, { conditional: 'BETWEEN', values: ['50', '500'] }, merchant);
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.conditional, 'BETWEEN');
      assert.deepEqual(changed.body.values, ['50', '500']);
      const invalid = await patch(`/v1/rules/${rule.id}`, { conditional: 'STARTS_WITH' }, merchant);
      assert.equal(invalid.status, 422);
      assert.equal(invalid.body.details.errors[0].field, 'conditional');
      assert.equal((await patch(`/v1/rules/${rule.id}`, {}, merchant)).status, 400);
      assert.equal((await call(`/v1/rules/${rule.id}`, { credentials: merchant })).body.conditional, 'BETWEEN');

      const inactive = await patch(`/v1/rules/${rule.id}/status`, { status: 'INACTIVE' }, merchant);
      assert.equal(inactive.status, 200);
      assert.equal(inactive.body.status, 'INACTIVE');
      assert.equal((await call(`/v1/rules/${rule.id}`, { credentials: merchant })).body.status, 'INACTIVE');
      const active = await patch(`/v1/rules/${rule.id}/status`, { status: 'ACTIVE' }, merchant);
      assert.equal(active.body.status, 'ACTIVE');
      assert.equal((await patch(`/v1/rules/${rule.id}/status`, { status: 'DELETED' }, merchant)).status, 400);
    });
  });

  describe('status transitions', () => {
    it('ACTIVE -> PAUSED -> ACTIVE -> COMPLETED, then every change is 422', async () => {
      const campaign = await createCampaign(merchant);
      const [rule] = await addRules(merchant, campaign.id, [{ rule_type: 'UNIQUE_BY_USER' }]);
      const path = `/v1/campaigns/${campaign.id}/status`;
      const paused = await patch(path, { status: 'PAUSED' }, merchant);
      assert.equal(paused.status, 200);
      assert.equal(paused.body.status, 'PAUSED');
      assert.equal((await patch(path, { status: 'PAUSED' }, merchant)).body.status, 'PAUSED');
      assert.equal((await patch(path, { status: 'ACTIVE' }, merchant)).body.status, 'ACTIVE');
      assert.equal((await patch(path, { status: 'DELETED' }, merchant)).status, 400);
      const completed = await patch(path, { status: 'COMPLETED' }, merchant);
      assert.equal(completed.status, 200);
      assert.equal(completed.body.status, 'COMPLETED');
      assert.equal((await call(`/v1/campaigns/${campaign.id}`, { credentials: merchant })).body.status, 'COMPLETED');
      const handle = stack.temporal.workflow.getHandle(campaignWorkflowId(campaign.id));
      assert.equal(await handle.result(), 'COMPLETED');

      for (const status of ['ACTIVE', 'PAUSED', 'COMPLETED']) {
        const refused = await patch(path, { status }, merchant);
        assert.equal(refused.status, 422);
        assert.equal(refused.body.details.error_code, 'INVALID_STATUS_TRANSITION');
        assert.match(refused.body.message, /COMPLETED/);
      }
      assert.equal((await call(`/v1/campaigns/${campaign.id}`, { method: 'DELETE', credentials: merchant })).status, 422);
      assert.equal((await addRulesRaw(campaign.id)).status, 422);
      assert.equal((await patch(`/v1/rules/${rule.id}/status`, { status: 'INACTIVE' }, merchant)).status, 422);
    });

    const addRulesRaw = (id: string) => call(`/v1/campaigns/${id}/rules`, { body: { rules: [{ rule_type: 'UNIQUE_BY_USER' }] }, credentials: merchant });

    it('DELETE cancels (CANCELLED is terminal); PAUSED -> COMPLETED is allowed', async () => {
      const campaign = await createCampaign(merchant);
      await patch(`/v1/campaigns/${campaign.id}/status`, { status: 'PAUSED' }, merchant);
      const cancelled = await call(`/v1/campaigns/${campaign.id}`, { method: 'DELETE', credentials: merchant });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'CANCELLED');
      const refused = await patch(`/v1/campaigns/${campaign.id}/status`, { status: 'ACTIVE' }, merchant);
      assert.equal(refused.status, 422);
      assert.match(refused.body.message, /CANCELLED/);
      const description = await stack.temporal.workflow.getHandle(campaignWorkflowId(campaign.id)).describe();
      assert.deepEqual(description.searchAttributes.ResourceStatus, ['CANCELLED']);

      const other2 = await createCampaign(merchant);
      await patch(`/v1/campaigns/${other2.id}/status`, { status: 'PAUSED' }, merchant);
      assert.equal((await patch(`/v1/campaigns/${other2.id}/status`, { status: 'COMPLETED' }, merchant)).body.status, 'COMPLETED');
    });

    it('concurrent terminal changes: exactly one wins, the other is 422 from the workflow', async () => {
      for (let i = 0; i < 3; i++) {
        const campaign = await createCampaign(merchant);
        const [cancel, complete] = await Promise.all([
          call(`/v1/campaigns/${campaign.id}`, { method: 'DELETE', credentials: merchant }),
          patch(`/v1/campaigns/${campaign.id}/status`, { status: 'COMPLETED' }, merchant),
        ]);
        assert.deepEqual([cancel.status, complete.status].sort(), [200, 422]);
        const winner = cancel.status === 200 ? cancel : complete;
        const loser = cancel.status === 200 ? complete : cancel;
        assert.equal(loser.body.details.error_code, 'INVALID_STATUS_TRANSITION');
        assert.equal((await call(`/v1/campaigns/${campaign.id}`, { credentials: merchant })).body.status, winner.body.status);
      }
    });

    it('completes by itself at duration.end_at (durable timer)', async function () {
      this.timeout(30_000);
      const endAt = new Date(Date.now() + 3_000).toISOString();
      const campaign = await createCampaign(merchant, { duration: { start_at: new Date(Date.now() - 60_000).toISOString(), end_at: endAt } });
      assert.equal(campaign.status, 'ACTIVE');
      const status = await stack.temporal.workflow.getHandle(campaignWorkflowId(campaign.id)).result();
      assert.equal(status, 'COMPLETED');
      const read = await call(`/v1/campaigns/${campaign.id}`, { credentials: merchant });
      assert.equal(read.body.status, 'COMPLETED');
      assert.ok(Date.parse(read.body.updated_at) >= Date.parse(endAt));
      assert.equal((await patch(`/v1/campaigns/${campaign.id}/status`, { status: 'ACTIVE' }, merchant)).status, 422);
    });
  });

  describe('cross-organization isolation', () => {
    it('answers every campaign and rule endpoint of another organization like a missing one', async () => {
      const campaign = await createCampaign(merchant);
      const [rule] = await addRules(merchant, campaign.id, [{ rule_type: 'UNIQUE_BY_USER' }]);
      const probes: Array<[string, string, unknown?]> = [
        ['GET', `/v1/campaigns/${campaign.id}`],
        ['PATCH', `/v1/campaigns/${campaign.id}/status`, { status: 'PAUSED' }],
        ['DELETE', `/v1/campaigns/${campaign.id}`],
        ['POST', `/v1/campaigns/${campaign.id}/rules`, { rules: [{ rule_type: 'UNIQUE_BY_USER' }] }],
        ['POST', `/v1/campaigns/${campaign.id}/test-events`, { amount: { value: 1, currency: 'COP' } }],
        ['GET', `/v1/campaigns/${campaign.id}/communications`],
        ['GET', `/v1/rules/${rule.id}`],
        ['PATCH', `/v1/rules/${rule.id}`, { values: ['1'] }],
        ['PATCH', `/v1/rules/${rule.id}/status`, { status: 'INACTIVE' }],
      ];
      for (const [method, path, body] of probes) {
        const foreign = await call(path, { method, body, credentials: other });
        const missing = await call(path.replace(campaign.id, MISSING).replace(rule.id, MISSING), { method, body, credentials: other });
        assert.equal(foreign.status, 404, `${method} ${path}`);
        assert.deepEqual(foreign.body, missing.body, `${method} ${path}`);
      }
      const still = await call(`/v1/campaigns/${campaign.id}`, { credentials: merchant });
      assert.equal(still.body.status, 'ACTIVE');
      assert.equal(still.body.rules[0].status, 'ACTIVE');
    });
  });

  describe('test-events (dry run)', () => {
    it('reports each rule outcome and the window without sending', async () => {
      const campaign = await createCampaign(merchant, { schedule: { daily_start_time: '09:00', daily_end_time: '18:00', time_zone: 'America/Bogota' } });
      await addRules(merchant, campaign.id, [
        { rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'GREATER_THAN_OR_EQUAL', values: ['100', 'COP'] },
        { rule_type: 'METADATA', conditional: 'CONTAINS', values: ['VIP'], metadata_key: 'segment' },
        { rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['4513'] },
      ]);
      const sample = { amount: { value: 100, currency: 'COP' }, card_bin: '45130300', metadata: [{ key: 'segment', value: 'gold-vip' }], at: '2026-03-02T12:00:00Z' };
      const pass = await call(`/v1/campaigns/${campaign.id}/test-events`, { body: sample, credentials: merchant });
      assert.equal(pass.status, 200, JSON.stringify(pass.body));
      assert.equal(pass.body.would_trigger, true);
      assert.deepEqual(pass.body.rules.map((r: any) => r.passed), [true, true, true]);
      assert.deepEqual(pass.body.schedule, { in_window: false, next_window_at: '2026-03-02T14:00:00.000Z' });
      const fail = await call(`/v1/campaigns/${campaign.id}/test-events`, { body: { ...sample, amount: { value: 99.9999, currency: 'COP' } }, credentials: merchant });
      assert.equal(fail.body.would_trigger, false);
      assert.deepEqual(fail.body.rules.map((r: any) => r.passed), [false, true, true]);
      assert.deepEqual(fail.body.blocked_by, ['RULES_FAILED']);
      assert.equal((await call(`/v1/campaigns/${campaign.id}/test-events`, { body: { amount: { value: 'x' } }, credentials: merchant })).status, 400);
      const empty = await createCampaign(merchant);
      const none = await call(`/v1/campaigns/${empty.id}/test-events`, { body: sample, credentials: merchant });
      assert.deepEqual([none.body.would_trigger, none.body.blocked_by, none.body.schedule.in_window], [false, ['NO_ACTIVE_RULES'], true]);
      assert.deepEqual(await communications(campaign.id), []);
    });
  });

  describe('declined-payment trigger', function () {
    this.timeout(120_000);

    it('one declined event triggers exactly one communication for a matching ACTIVE campaign', async () => {
      const merchant = await newMerchant('Single trigger merchant');
      const campaign = await createCampaign(merchant, { channel: 'PHONE_CALL' });
      await addRules(merchant, campaign.id, [
        { rule_type: 'AMOUNT', conditional: 'GREATER_THAN', values: ['100'] },
        { rule_type: 'RESPONSE_CODE', conditional: 'IN', values: ['INSUFFICIENT_FUNDS'] },
      ]);
      const eventId = await declined(merchant, { metadata: [{ key: 'user_id', value: `u-${randomUUID()}` }] });
      const results = await processed(eventId);
      assert.deepEqual(results.filter((r) => r.campaign_id === campaign.id).map((r) => r.outcome), ['SENT']);
      const sent = await communications(campaign.id, merchant);
      assert.equal(sent.length, 1);
      assert.equal(sent[0].event_id, eventId);
      assert.equal(sent[0].channel, 'PHONE_CALL');
      assert.equal(sent[0].status, 'SENT');
      assert.deepEqual(sent[0].recipient, { phone_last_digits: '4567' });
      assert.match(sent[0].provider.reference, /^sbx_call_/);
      const eventRun = await stack.temporal.workflow.getHandle(campaignEventWorkflowId(eventId)).describe();
      assert.deepEqual(eventRun.searchAttributes.AccountId, [merchant.account_id]);
      // The phone is stored sealed, never in clear.
      const stored = await stack.db.collection('communications').findOne({ _id: sent[0].id as never });
      assert.ok(!JSON.stringify(stored).includes('3001234567'));
      assert.equal(openString(stack.keyring, 'field', stored!.recipient_phone_sealed, sent[0].id), '+573001234567');
      // Re-running the delivery for the same event sends nothing more.
      const again = await createCampaignActivities({ config: stack.config, db: stack.db, keyring: stack.keyring, logger: createLogger('silent') }).deliverCampaignCommunication({ campaignId: campaign.id, eventId });
      assert.equal(again.outcome, 'ALREADY_SENT');
      assert.equal((await communications(campaign.id, merchant)).length, 1);
    });

    it('nothing for a PAUSED, COMPLETED, rule-less or non-matching campaign; an INACTIVE failing rule is ignored', async () => {
      const trigger = await newMerchant('Trigger merchant');
      const paused = await createCampaign(trigger);
      await patch(`/v1/campaigns/${paused.id}/status`, { status: 'PAUSED' }, trigger);
      const strict = await createCampaign(trigger);
      await addRules(trigger, strict.id, [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['USD'] }]);
      await addRules(trigger, paused.id, [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['COP'] }]);
      const relaxed = await createCampaign(trigger);
      const [failing] = await addRules(trigger, relaxed.id, [
        { rule_type: 'PROVIDER', conditional: 'EQUAL', values: ['OTHER'] },
        { rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['4513'] },
      ]);
      await patch(`/v1/rules/${failing.id}/status`, { status: 'INACTIVE' }, trigger);
      const completed = await createCampaign(trigger);
      await addRules(trigger, completed.id, [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['COP'] }]);
      await patch(`/v1/campaigns/${completed.id}/status`, { status: 'COMPLETED' }, trigger);
      const withoutRules = await createCampaign(trigger);

      const eventId = await declined(trigger);
      const results = await processed(eventId);
      assert.deepEqual(results.map((r) => r.campaign_id), [relaxed.id]);
      assert.equal((await communications(relaxed.id, trigger)).length, 1);
      assert.equal((await communications(paused.id, trigger)).length, 0);
      assert.equal((await communications(strict.id, trigger)).length, 0);
      assert.equal((await communications(completed.id, trigger)).length, 0);
      assert.equal((await communications(withoutRules.id, trigger)).length, 0);
      // A decline from before the campaign existed does not trigger it.
      const earlier = await declined(trigger, {}, new Date(Date.parse(relaxed.created_at) - 1_000));
      assert.deepEqual(await processed(earlier), []);
      assert.equal((await communications(relaxed.id, trigger)).length, 1);
      // An account without ACTIVE campaigns gets no workflow at all, once its event is claimed.
      const idle = await newMerchant('Idle merchant');
      await createCampaign(idle).then((c) => patch(`/v1/campaigns/${c.id}/status`, { status: 'PAUSED' }, idle));
      const idleEvent = await declined(idle);
      await waitFor('the claim', () => stack.db.collection('campaign_event_claims').findOne({ _id: idleEvent as never }));
      await new Promise((r) => setTimeout(r, 500));
      await assert.rejects(stack.temporal.workflow.getHandle(campaignEventWorkflowId(idleEvent)).describe(), WorkflowNotFoundError);
    });

    describe('rate limits under concurrent events, with two workers', () => {
      let second: RunningWorker;
      before(async function () {
        this.timeout(120_000);
        second = await startWorker({ config: stack.config, keyring: stack.keyring, logger: createLogger('silent'), mongo: stack.mongo });
      });
      after(async function () {
        this.timeout(60_000);
        await second?.shutdown();
      });

      it('UNIQUE_BY_USER: one communication per user per campaign', async () => {
        const limited = await newMerchant('Unique merchant');
        const campaign = await createCampaign(limited);
        await addRules(limited, campaign.id, [{ rule_type: 'UNIQUE_BY_USER' }]);
        const user = `u-${randomUUID()}`;
        const events = await Promise.all(Array.from({ length: 6 }, () => declined(limited, { metadata: [{ key: 'user_id', value: user }] })));
        const otherUser = await declined(limited, { metadata: [{ key: 'user_id', value: `${user}-b` }] });
        const noUser = await declined(limited, { metadata: [] });
        const outcomes = (await Promise.all(events.map(processed))).flat().map((r) => r.outcome);
        assert.deepEqual(outcomes.sort(), ['SENT', 'SKIPPED', 'SKIPPED', 'SKIPPED', 'SKIPPED', 'SKIPPED']);
        assert.deepEqual((await processed(otherUser)).map((r) => r.outcome), ['SENT']);
        assert.deepEqual(await processed(noUser), []);
        const sent = await communications(campaign.id, limited);
        assert.deepEqual(sent.map((c) => c.user_id).sort(), [user, `${user}-b`]);
      });

      it('USER_COMMS_PER_DAY: at most the daily limit per user', async () => {
        const limited = await newMerchant('Daily merchant');
        const campaign = await createCampaign(limited);
        await addRules(limited, campaign.id, [{ rule_type: 'USER_COMMS_PER_DAY', values: ['2'] }]);
        const user = `u-${randomUUID()}`;
        const events = await Promise.all(Array.from({ length: 7 }, () => declined(limited, { metadata: [{ key: 'user_id', value: user }] })));
        const results = (await Promise.all(events.map(processed))).flat();
        assert.equal(results.filter((r) => r.outcome === 'SENT').length, 2);
        assert.ok(results.filter((r) => r.outcome === 'SKIPPED').every((r) => r.reason.startsWith('USER_COMMS_PER_DAY')));
        assert.equal((await communications(campaign.id, limited)).length, 2);
      });

      it('claims each event exactly once when two pollers race', async () => {
        const isolated = stack.mongo.client.db(`switchyard_claims_${Date.now()}`);
        const base = { config: stack.config, keyring: stack.keyring, logger: createLogger('silent') };
        const ids = Array.from({ length: 40 }, () => randomUUID());
        await isolated.collection('domain_events').insertMany(ids.map((id) => ({ _id: id as never, type: 'payment.declined', account_id: 'a', organization_code: 'o', occurred_at: new Date(), payload: {} })));
        const since = new Date(Date.now() - 60_000).toISOString();
        const [a, b] = await Promise.all(
          ['worker-a', 'worker-b'].map((claimant) => createCampaignActivities({ ...base, db: isolated }).claimDeclinedEvents({ since, claimant, max: 100 })),
        );
        assert.equal(a.claimed.length + b.claimed.length, 40);
        assert.deepEqual([...a.claimed, ...b.claimed].sort(), [...ids].sort());
        assert.deepEqual([...a.events, ...b.events], [], 'no account there has an ACTIVE campaign');
        // A retried round gets its own claims back, and nothing of the other's.
        const retried = await createCampaignActivities({ ...base, db: isolated }).claimDeclinedEvents({ since, claimant: 'worker-a', max: 100 });
        assert.deepEqual(retried.claimed.sort(), [...a.claimed].sort());
        await isolated.dropDatabase();
      });
    });

    it('waits for the daily window (durable timer) and sends when it opens', async function () {
      this.timeout(150_000);
      const windowed = await newMerchant('Window merchant');
      // The window opens at the next minute boundary at least 15 s away, in UTC.
      let opensAt = Math.ceil(Date.now() / 60_000) * 60_000;
      if (opensAt - Date.now() < 15_000) opensAt += 60_000;
      const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
      const campaign = await createCampaign(windowed, { schedule: { daily_start_time: hhmm(opensAt), daily_end_time: hhmm(opensAt + 3_600_000), time_zone: 'UTC' } });
      await addRules(windowed, campaign.id, [{ rule_type: 'PAYMENT_STATUS', conditional: 'EQUAL', values: ['DECLINED'] }]);
      const insertedAt = Date.now();
      const eventId = await declined(windowed);
      const handle = stack.temporal.workflow.getHandle<(input: { eventId: string }) => Promise<Array<{ outcome: string }>>>(campaignEventWorkflowId(eventId));
      const timer = await waitFor('the window timer', async () => {
        const history = await handle.fetchHistory().catch(() => undefined);
        return history?.events?.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
      });
      const timerMs = Number(timer.startToFireTimeout!.seconds) * 1000 + Math.round((timer.startToFireTimeout!.nanos ?? 0) / 1e6);
      assert.ok(timerMs <= opensAt - insertedAt && timerMs >= opensAt - Date.now() - 1_000, `timer of ${timerMs} ms for an opening in ${opensAt - Date.now()} ms`);
      assert.deepEqual(await communications(campaign.id, windowed), []);
      const results = await handle.result();
      assert.deepEqual(results.map((r) => r.outcome), ['SENT']);
      const [sent] = await communications(campaign.id, windowed);
      assert.ok(Date.parse(sent.sent_at) >= opensAt, `${sent.sent_at} is before the window opened`);
    });

    it('a campaign paused while its message waits for the window sends nothing', async function () {
      this.timeout(60_000);
      const windowed = await newMerchant('Paused window merchant');
      const opensIn = new Date(Date.now() + 2 * 3_600_000);
      const campaign = await createCampaign(windowed, { schedule: { daily_start_time: opensIn.toISOString().slice(11, 16), daily_end_time: new Date(opensIn.getTime() + 3_600_000).toISOString().slice(11, 16), time_zone: 'UTC' } });
      await addRules(windowed, campaign.id, [{ rule_type: 'PAYMENT_STATUS', conditional: 'EQUAL', values: ['DECLINED'] }]);
      const eventId = await declined(windowed);
      const handle = stack.temporal.workflow.getHandle(campaignEventWorkflowId(eventId));
      await waitFor('the window timer', async () => (await handle.fetchHistory().catch(() => undefined))?.events?.some((e) => e.timerStartedEventAttributes));
      await patch(`/v1/campaigns/${campaign.id}/status`, { status: 'PAUSED' }, windowed);
      // Skip the wait: the delivery re-checks the campaign when the timer fires.
      const activities = createCampaignActivities({ config: stack.config, db: stack.db, keyring: stack.keyring, logger: createLogger('silent') });
      const outcome = await activities.deliverCampaignCommunication({ campaignId: campaign.id, eventId });
      assert.equal(outcome.outcome, 'SKIPPED');
      assert.match(outcome.reason, /CAMPAIGN_NOT_ACTIVE/);
      assert.deepEqual(await communications(campaign.id, windowed), []);
      await handle.terminate('test done');
    });
  });
});
