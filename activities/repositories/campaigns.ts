/**
 * Campaigns, their rules and the communications they sent: documents, response mapping
 * and the reads the API and the activities share. Writes happen only in activities called
 * by the campaign workflow (workflows/campaign.ts) and the trigger (workflows/campaign-trigger.ts).
 */
import { findByIdWithin } from '../runtime/mongo';
import type { Db, Filter } from 'mongodb';
import type {
  Campaign,
  CampaignChannel,
  CampaignRule,
  CampaignStatus,
  Conditional,
  Duration,
  RuleStatus,
  RuleType,
  Schedule,
} from '../../domain/campaigns/codecs';
import { ApiError } from '../../domain/errors';

export const CAMPAIGNS = 'campaigns';
export const CAMPAIGN_RULES = 'campaign_rules';
export const COMMUNICATIONS = 'communications';
export const DOMAIN_EVENTS = 'domain_events';
export const CAMPAIGN_EVENT_CLAIMS = 'campaign_event_claims';
export const CAMPAIGN_RATE_SLOTS = 'campaign_rate_slots';

export interface CampaignDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  name: string;
  country: string;
  channel: CampaignChannel;
  focus: string | null;
  schedule: Schedule | null;
  duration: Duration | null;
  status: CampaignStatus;
  created_at: Date;
  updated_at: Date;
}

export interface CampaignRuleDoc {
  _id: string;
  campaign_id: string;
  organization_code: string;
  account_id: string;
  rule_type: RuleType;
  values: string[];
  conditional: Conditional | null;
  metadata_key: string | null;
  status: RuleStatus;
  /** Order within the request that created it (rules of one call share created_at). */
  position: number;
  created_at: Date;
  updated_at: Date;
}

export interface CommunicationDoc {
  _id: string; // `${campaign_id}:${event_id}`: one communication per campaign and event
  campaign_id: string;
  organization_code: string;
  account_id: string;
  event_id: string;
  payment_id: string | null;
  channel: CampaignChannel;
  status: 'SENDING' | 'SENT';
  /** Recipient phone sealed with the 'field' key (AAD = _id); only the last digits are clear. */
  recipient_phone_sealed: string;
  recipient_phone_last_digits: string;
  user_id: string | null;
  provider: { name: string; reference: string | null };
  created_at: Date;
  sent_at: Date | null;
}

/** A payment.declined document as the payments feature stores it in domain_events. */
export interface DeclinedEventDoc {
  _id: unknown;
  type: 'payment.declined';
  organization_code: string;
  account_id: string;
  payment_id?: string;
  occurred_at: Date | string;
  payload: Record<string, unknown>;
}

export function campaignResponse(doc: CampaignDoc): Campaign {
  return {
    id: doc._id,
    name: doc.name,
    account_id: doc.account_id,
    organization_code: doc.organization_code,
    country: doc.country,
    channel: doc.channel,
    focus: doc.focus,
    schedule: doc.schedule,
    duration: doc.duration,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function ruleResponse(doc: CampaignRuleDoc): CampaignRule {
  return {
    id: doc._id,
    campaign_id: doc.campaign_id,
    rule_type: doc.rule_type,
    values: doc.values,
    conditional: doc.conditional,
    metadata_key: doc.metadata_key,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function communicationResponse(doc: CommunicationDoc) {
  return {
    id: doc._id,
    campaign_id: doc.campaign_id,
    event_id: doc.event_id,
    payment_id: doc.payment_id,
    channel: doc.channel,
    status: doc.status,
    recipient: { phone_last_digits: doc.recipient_phone_last_digits },
    user_id: doc.user_id,
    provider: doc.provider,
    created_at: doc.created_at.toISOString(),
    sent_at: doc.sent_at ? doc.sent_at.toISOString() : null,
  };
}

/** The campaign when it belongs to the organization; null otherwise (same as missing). */
export function findOwnedCampaign(db: Db, organizationCode: string, campaignId: string) {
  return findByIdWithin(db.collection<CampaignDoc>(CAMPAIGNS), campaignId, { organization_code: organizationCode });
}

export function findOwnedRule(db: Db, organizationCode: string, ruleId: string) {
  return findByIdWithin(db.collection<CampaignRuleDoc>(CAMPAIGN_RULES), ruleId, { organization_code: organizationCode });
}

export function rulesOf(db: Db, campaignId: string) {
  return db.collection<CampaignRuleDoc>(CAMPAIGN_RULES).find({ campaign_id: campaignId }).sort({ created_at: 1, position: 1, _id: 1 }).toArray();
}

/**
 * Keyset pagination on (created_at desc, _id desc): the cursor is the last item's pair,
 * opaque to clients (base64url JSON).
 */
export function encodeCursor(doc: { _id: string; created_at: Date }): string {
  return Buffer.from(JSON.stringify([doc.created_at.toISOString(), doc._id])).toString('base64url');
}

export function cursorFilter(cursor: string | undefined): Filter<{ _id: string; created_at: Date }> {
  if (!cursor) return {};
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    position = undefined;
  }
  if (!Array.isArray(position) || position.length !== 2 || typeof position[1] !== 'string' || Number.isNaN(Date.parse(String(position[0])))) {
    throw new ApiError('validation', 'cursor is not a cursor returned by this endpoint', { fieldErrors: [{ field: 'cursor', code: 'INVALID', message: 'cursor is invalid' }] });
  }
  const at = new Date(String(position[0]));
  return { $or: [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: position[1] } }] };
}

/** One page of a keyset-paginated collection, newest first. */
export async function page<T extends { _id: string; created_at: Date }>(db: Db, collection: string, filter: Filter<T>, cursor: string | undefined, limit: number) {
  const docs = (await db
    .collection<T>(collection)
    .find({ ...filter, ...(cursorFilter(cursor) as Filter<T>) })
    .sort({ created_at: -1, _id: -1 })
    .limit(limit + 1)
    .toArray()) as T[];
  const more = docs.length > limit;
  const items = docs.slice(0, limit);
  return { items, nextCursor: more ? encodeCursor(items[items.length - 1]) : null };
}
