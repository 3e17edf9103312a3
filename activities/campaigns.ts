/**
 * Campaign activities: the writes of the campaign lifecycle (called only by
 * workflows/campaign.ts) and the declined-payment trigger (workflows/campaign-trigger.ts):
 * claiming events, planning which campaigns a declined payment triggers, and delivering a
 * communication under the rate-limiting rules.
 *
 * Every activity is idempotent. Every concurrency decision is an insert against a unique
 * _id (the one write FerretDB makes atomic): event claims, rate-limit slots and the
 * communication itself (one per campaign and event).
 */
import { Db, MongoServerError, ObjectId } from 'mongodb';
import type { ActivityDeps } from './index';
import { sandboxChannelAdapters, ChannelAdapter } from './channels';
import {
  CAMPAIGN_EVENT_CLAIMS,
  CAMPAIGN_RATE_SLOTS,
  CAMPAIGN_RULES,
  CAMPAIGNS,
  campaignResponse,
  CampaignDoc,
  CampaignRuleDoc,
  COMMUNICATIONS,
  CommunicationDoc,
  DeclinedEventDoc,
  DOMAIN_EVENTS,
  ruleResponse,
  rulesOf,
} from './repositories/campaigns';
import type { Campaign, CampaignChannel, CampaignRule, CampaignStatus, DeclinedPayment, RuleDefinition, RuleStatus } from '../domain/campaigns/codecs';
import { DeclinedPayment as DeclinedPaymentCodec } from '../domain/campaigns/codecs';
import { assessCampaign, userIdOf } from '../domain/campaigns/engine';
import { dayKey } from '../domain/campaigns/schedule';
import { sealString } from '../domain/crypto';

export interface CampaignRecordInput {
  id: string;
  organization_code: string;
  account_id: string;
  name: string;
  country: string;
  channel: CampaignChannel;
  focus: string | null;
  schedule: CampaignDoc['schedule'];
  duration: CampaignDoc['duration'];
}

export type DeliveryOutcome = 'SENT' | 'ALREADY_SENT' | 'SKIPPED';

export interface DeliveryResult {
  campaign_id: string;
  outcome: DeliveryOutcome;
  reason: string;
}

const CLAIM_RETENTION_MS = 7 * 86_400_000;

const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

/** Inserts `doc`; false when its _id exists already. */
async function insertOnce(db: Db, collection: string, doc: { _id: string } & Record<string, unknown>): Promise<boolean> {
  try {
    await db.collection(collection).insertOne(doc as never);
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Reserves the unique key `_id` for `owner`: true when it is ours (now or from an earlier
 * attempt of the same delivery), false when someone else holds it.
 */
async function reserve(db: Db, id: string, owner: string, extra: Record<string, unknown> = {}): Promise<boolean> {
  if (await insertOnce(db, CAMPAIGN_RATE_SLOTS, { _id: id, owner, reserved_at: new Date(), ...extra })) return true;
  const held = await db.collection<{ _id: string; owner: string }>(CAMPAIGN_RATE_SLOTS).findOne({ _id: id });
  return held?.owner === owner;
}

async function findEvent(db: Db, eventId: string) {
  const events = db.collection<DeclinedEventDoc>(DOMAIN_EVENTS);
  const byId = ObjectId.isValid(eventId) && eventId.length === 24 ? { $in: [eventId, new ObjectId(eventId)] } : eventId;
  const event = await events.findOne({ _id: byId as never });
  return event?.type === 'payment.declined' ? event : null;
}

/** The event's payload as the rule engine reads it; null when it lacks an amount. */
function declinedPaymentOf(event: DeclinedEventDoc): DeclinedPayment | null {
  const payload = { ...(event.payload ?? {}) } as Record<string, unknown>;
  // Metadata values may arrive as numbers or booleans; rules compare text.
  if (Array.isArray(payload.metadata)) {
    payload.metadata = payload.metadata.map((e: { key?: unknown; value?: unknown }) => ({ key: String(e?.key ?? ''), value: e?.value == null ? null : String(e.value) }));
  }
  const decoded = DeclinedPaymentCodec.decode(payload);
  return decoded._tag === 'Right' ? decoded.right : null;
}

function occurredAt(event: DeclinedEventDoc): Date {
  return event.occurred_at instanceof Date ? event.occurred_at : new Date(event.occurred_at);
}

export function createCampaignActivities(deps: ActivityDeps, adapters: Record<CampaignChannel, ChannelAdapter> = sandboxChannelAdapters()) {
  const { db } = deps;
  const campaigns = db.collection<CampaignDoc>(CAMPAIGNS);
  const rules = db.collection<CampaignRuleDoc>(CAMPAIGN_RULES);
  const communications = db.collection<CommunicationDoc>(COMMUNICATIONS);

  return {
    async recordCampaign(input: CampaignRecordInput): Promise<Campaign> {
      const now = new Date();
      await insertOnce(db, CAMPAIGNS, {
        _id: input.id,
        organization_code: input.organization_code,
        account_id: input.account_id,
        name: input.name,
        country: input.country,
        channel: input.channel,
        focus: input.focus,
        schedule: input.schedule,
        duration: input.duration,
        status: 'ACTIVE',
        created_at: now,
        updated_at: now,
      });
      return campaignResponse((await campaigns.findOne({ _id: input.id }))!);
    },

    async writeCampaignStatus(input: { campaignId: string; status: CampaignStatus }): Promise<Campaign> {
      await campaigns.updateOne({ _id: input.campaignId }, { $set: { status: input.status, updated_at: new Date() } });
      return campaignResponse((await campaigns.findOne({ _id: input.campaignId }))!);
    },

    async recordCampaignRules(input: { campaignId: string; rules: Array<RuleDefinition & { id: string }> }): Promise<CampaignRule[]> {
      const campaign = (await campaigns.findOne({ _id: input.campaignId }))!;
      const now = new Date();
      for (const [position, rule] of input.rules.entries()) {
        await insertOnce(db, CAMPAIGN_RULES, {
          _id: rule.id,
          position,
          campaign_id: campaign._id,
          organization_code: campaign.organization_code,
          account_id: campaign.account_id,
          rule_type: rule.rule_type,
          values: rule.values,
          conditional: rule.conditional,
          metadata_key: rule.metadata_key,
          status: 'ACTIVE',
          created_at: now,
          updated_at: now,
        });
      }
      const stored = await rules.find({ _id: { $in: input.rules.map((r) => r.id) } }).toArray();
      return input.rules.map((r) => ruleResponse(stored.find((s) => s._id === r.id)!));
    },

    async loadCampaignRule(input: { ruleId: string }): Promise<(RuleDefinition & { status: RuleStatus }) | null> {
      const rule = await rules.findOne({ _id: input.ruleId });
      return rule && { rule_type: rule.rule_type, values: rule.values, conditional: rule.conditional, metadata_key: rule.metadata_key, status: rule.status };
    },

    async writeCampaignRule(input: { ruleId: string; definition?: RuleDefinition; status?: RuleStatus }): Promise<CampaignRule> {
      const changes: Partial<CampaignRuleDoc> = { updated_at: new Date() };
      if (input.definition) Object.assign(changes, input.definition);
      if (input.status) changes.status = input.status;
      await rules.updateOne({ _id: input.ruleId }, { $set: changes });
      return ruleResponse((await rules.findOne({ _id: input.ruleId }))!);
    },

    /**
     * Claims up to `max` unclaimed payment.declined events that occurred at or after
     * `since`; `events` are those whose account has an ACTIVE campaign. A claim is a unique insert keyed by the event id, so each event is claimed by
     * exactly one poll round even with several workers; a retried round (same claimant)
     * gets its own claims back. `next` is where the following round starts: a little before
     * the newest event seen, so events stored late (clock skew) are still picked up.
     */
    async claimDeclinedEvents(input: { since: string | null; claimant: string; max: number }): Promise<{ claimed: string[]; events: Array<{ id: string; accountId: string }>; next: string }> {
      const since = input.since ? new Date(input.since) : new Date(Date.now() - deps.config.campaignEventLookbackMs);
      const scanLimit = input.max * 5;
      const events = await db
        .collection<DeclinedEventDoc>(DOMAIN_EVENTS)
        .find({ type: 'payment.declined', $or: [{ occurred_at: { $gte: since } }, { occurred_at: { $gte: since.toISOString() } }] } as never)
        .sort({ occurred_at: 1, _id: 1 })
        .limit(scanLimit)
        .toArray();
      // A claim outlives every window a poll can look back over (then housekeeping purges it);
      // even a re-claimed event sends nothing twice (communications are keyed by campaign and event).
      const claimExpiry = new Date(Date.now() + Math.max(CLAIM_RETENTION_MS, deps.config.campaignEventLookbackMs + deps.config.campaignEventSkewMs + 86_400_000));
      // Known claims in one read, so re-scanned events cost no insert attempt.
      const claims = db.collection<{ _id: string; claimant: string }>(CAMPAIGN_EVENT_CLAIMS);
      const known = new Map(
        (await claims.find({ _id: { $in: events.map((e) => String(e._id)) } }).toArray()).map((c) => [c._id, c.claimant]),
      );
      const claimed: DeclinedEventDoc[] = [];
      let newest = since;
      for (const event of events) {
        if (claimed.length >= input.max) break;
        const eventId = String(event._id);
        const at = occurredAt(event);
        if (at > newest) newest = at;
        let claimant = known.get(eventId);
        if (claimant === undefined) {
          const claimed = await insertOnce(db, CAMPAIGN_EVENT_CLAIMS, { _id: eventId, claimant: input.claimant, account_id: event.account_id, occurred_at: at, claimed_at: new Date(), expires_at: claimExpiry });
          claimant = claimed ? input.claimant : (await claims.findOne({ _id: eventId }))?.claimant;
        }
        if (claimant === input.claimant) claimed.push(event);
      }
      // Only accounts with an ACTIVE campaign get a workflow: a campaign created later
      // ignores older declines, and PAUSED ones ignore declines while paused.
      const withCampaigns = new Set(
        claimed.length ? await campaigns.distinct('account_id', { account_id: { $in: [...new Set(claimed.map((e) => e.account_id))] }, status: 'ACTIVE' }) : [],
      );
      // A full scan of already-claimed events must still move forward.
      const full = events.length === scanLimit || claimed.length >= input.max;
      const next = full ? newest : new Date(Math.max(since.getTime(), newest.getTime() - deps.config.campaignEventSkewMs));
      return {
        claimed: claimed.map((e) => String(e._id)),
        events: claimed.filter((e) => withCampaigns.has(e.account_id)).map((e) => ({ id: String(e._id), accountId: e.account_id })),
        next: next.toISOString(),
      };
    },

    /** The ACTIVE campaigns of the event's account whose rules the payment passes, and when to send. */
    async planCampaignTriggers(input: { eventId: string }): Promise<{ accountId: string | null; candidates: Array<{ campaignId: string; sendAt: string }> }> {
      const event = await findEvent(db, input.eventId);
      const payment = event && declinedPaymentOf(event);
      if (!event || !payment) return { accountId: event?.account_id ?? null, candidates: [] };
      const now = new Date();
      const active = await campaigns
        .find({ account_id: event.account_id, organization_code: event.organization_code, status: 'ACTIVE' })
        .toArray();
      const candidates: Array<{ campaignId: string; sendAt: string }> = [];
      for (const campaign of active) {
        // A campaign reacts to declines from its creation on, within its active period.
        if (occurredAt(event) < campaign.created_at) continue;
        const assessment = assessCampaign(campaign, await rulesOf(db, campaign._id), payment, now);
        if (assessment.triggers) candidates.push({ campaignId: campaign._id, sendAt: assessment.sendAt.toISOString() });
      }
      return { accountId: event.account_id, candidates };
    },

    /**
     * Sends the campaign's communication for the event, once: re-checks the campaign (it may
     * have been paused while the message waited for the window) and the rules, reserves the
     * rate-limit slots, then records and sends. Safe to retry: slots, the record and the
     * provider call are all keyed by (campaign, event).
     */
    async deliverCampaignCommunication(input: { campaignId: string; eventId: string }): Promise<DeliveryResult> {
      const result = (outcome: DeliveryOutcome, reason: string): DeliveryResult => ({ campaign_id: input.campaignId, outcome, reason });
      const key = `${input.campaignId}:${input.eventId}`;
      const existing = await communications.findOne({ _id: key });
      if (existing?.status === 'SENT') return result('ALREADY_SENT', 'this event already triggered this campaign');

      const campaign = await campaigns.findOne({ _id: input.campaignId });
      const event = await findEvent(db, input.eventId);
      const payment = event && declinedPaymentOf(event);
      if (!campaign || !event || !payment) return result('SKIPPED', 'INVALID_EVENT: the campaign or the event is missing, or the event has no amount');
      // The campaign may have been paused, ended or had its rules changed while the message waited.
      const now = new Date();
      const assessment = assessCampaign(campaign, await rulesOf(db, campaign._id), payment, now);
      if (!assessment.triggers) return result('SKIPPED', `${assessment.blockedBy.join(', ')}: the campaign (${campaign.status}) no longer applies to this payment`);
      const phone = payment.customer?.phone?.trim();
      if (!phone) return result('SKIPPED', 'NO_RECIPIENT: the payment has no customer phone');

      const userId = userIdOf(payment);
      const active = assessment.evaluation.results.map((r) => r.rule);
      if (userId && active.some((r) => r.rule_type === 'UNIQUE_BY_USER')) {
        if (!(await reserve(db, `unique:${campaign._id}:${userId}`, key))) return result('SKIPPED', 'UNIQUE_BY_USER: this user was already contacted by this campaign');
      }
      const perDay = active.find((r) => r.rule_type === 'USER_COMMS_PER_DAY');
      if (userId && perDay) {
        const limit = Number(perDay.values[0]);
        const day = dayKey(campaign.schedule, now);
        // Slot n of the user's day is a unique key; a free one is ours (never a counter:
        // $inc is not atomic on FerretDB). One read finds the taken slots, or ours from an
        // earlier attempt of this delivery.
        const scope = { campaign_id: campaign._id, user_id: userId, day };
        const taken = await db.collection<{ _id: string; owner: string; n: number }>(CAMPAIGN_RATE_SLOTS).find(scope).toArray();
        let slot = taken.some((s) => s.owner === key);
        const used = new Set(taken.map((s) => s.n));
        for (let n = 1; n <= limit && !slot; n++) {
          if (used.has(n)) continue;
          slot = await reserve(db, `daily:${campaign._id}:${userId}:${day}:${n}`, key, { ...scope, n, expires_at: new Date(now.getTime() + 3 * 86_400_000) });
        }
        if (!slot) {
          await db.collection<{ _id: string; owner: string }>(CAMPAIGN_RATE_SLOTS).deleteOne({ _id: `unique:${campaign._id}:${userId}`, owner: key });
          return result('SKIPPED', `USER_COMMS_PER_DAY: the user reached ${limit} communication(s) on ${day}`);
        }
      }

      await insertOnce(db, COMMUNICATIONS, {
        _id: key,
        campaign_id: campaign._id,
        organization_code: campaign.organization_code,
        account_id: campaign.account_id,
        event_id: input.eventId,
        payment_id: event.payment_id ?? null,
        channel: campaign.channel,
        status: 'SENDING',
        recipient_phone_sealed: sealString(deps.keyring, 'field', phone, key),
        recipient_phone_last_digits: phone.replace(/\D/g, '').slice(-4),
        user_id: userId,
        provider: { name: adapters[campaign.channel].name, reference: null },
        created_at: now,
        sent_at: null,
      });
      const sent = await adapters[campaign.channel].send({
        idempotencyKey: key,
        channel: campaign.channel,
        recipientPhone: phone,
        campaign: { id: campaign._id, name: campaign.name, focus: campaign.focus, country: campaign.country },
        payment: { id: event.payment_id ?? null, amount: payment.amount.value, currency: payment.amount.currency },
      });
      await communications.updateOne({ _id: key }, { $set: { status: 'SENT', sent_at: new Date(), provider: { name: adapters[campaign.channel].name, reference: sent.reference } } });
      return result('SENT', `sent by ${campaign.channel}`);
    },
  };
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;
