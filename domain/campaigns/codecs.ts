/**
 * Campaign and campaign-rule codecs: request bodies, query parameters and responses.
 *
 * Shapes a decoder can check on its own (types, formats, required fields) fail with 400;
 * what depends on several fields (the rule table, end_at after start_at, an empty daily
 * window) is checked by ./validation and fails with 422, as the contract asks.
 */
import * as t from 'io-ts';
import {
  annotate,
  boundedArray,
  boundedString,
  CountryCode,
  CurrencyCode,
  DecimalAmount,
  enumOf,
  nullable,
  refined,
  struct,
  Timestamp,
  Uuid,
} from '../codecs/common';

export const CAMPAIGN_CHANNELS = ['WHATSAPP_MESSAGE', 'PHONE_CALL'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];

export const CAMPAIGN_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * Statuses a merchant may ask for with a status PATCH: the contract's ACTIVE, PAUSED and
 * COMPLETED, plus CANCELLED (how a campaign is cancelled is not in the contract; a PATCH to
 * CANCELLED does exactly what DELETE /v1/campaigns/{id} does).
 */
export const REQUESTABLE_CAMPAIGN_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED'] as const;

export const RULE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export const RULE_TYPES = [
  'AMOUNT',
  'CURRENCY',
  'AMOUNT_AND_CURRENCY',
  'PAYMENT_STATUS',
  'PAYMENT_METHOD',
  'PROVIDER',
  'CARD_BIN',
  'RESPONSE_CODE',
  'ISO_RESPONSE_CODE',
  'CATEGORY',
  'METADATA',
  'USER_COMMS_PER_DAY',
  'UNIQUE_BY_USER',
] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const CONDITIONALS = [
  'EQUAL',
  'NOT_EQUAL',
  'ONE_OF',
  'NOT_ONE_OF',
  'IN',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
  'BETWEEN',
  'CONTAINS',
  'STARTS_WITH',
] as const;
export type Conditional = (typeof CONDITIONALS)[number];

const IANA_ZONE_CHECK = new Map<string, boolean>();

/** True when the runtime's Intl knows the IANA zone name (e.g. America/Bogota). */
export function isTimeZone(name: string): boolean {
  let known = IANA_ZONE_CHECK.get(name);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name });
      known = name.length > 0;
    } catch {
      known = false;
    }
    IANA_ZONE_CHECK.set(name, known);
  }
  return known;
}

const stringCodec = boundedString(0, 1_000_000, 'string');

export const TimeOfDay = refined('TimeOfDay', stringCodec, (s) => /^([01]\d|2[0-3]):[0-5]\d$/.test(s), 'must be a time of day HH:MM (00:00 to 23:59)', {
  type: 'string',
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  example: '09:00',
});

export const TimeZone = refined('TimeZone', stringCodec, isTimeZone, 'must be an IANA time zone name such as America/Bogota', {
  type: 'string',
  example: 'America/Bogota',
});

export const Schedule = struct(
  'CampaignSchedule',
  { daily_start_time: TimeOfDay, daily_end_time: TimeOfDay, time_zone: TimeZone },
  {},
);
export type Schedule = t.TypeOf<typeof Schedule>;

export const Duration = struct('CampaignDuration', { start_at: Timestamp }, { end_at: nullable(Timestamp) });
export type Duration = t.TypeOf<typeof Duration>;

export const CampaignChannelCodec = enumOf('CampaignChannel', CAMPAIGN_CHANNELS);
export const CampaignStatusCodec = enumOf('CampaignStatus', CAMPAIGN_STATUSES);
export const RuleStatusCodec = enumOf('RuleStatus', RULE_STATUSES);

export const CreateCampaignRequest = struct(
  'CreateCampaignRequest',
  {
    name: boundedString(3, 255),
    account_id: Uuid,
    organization_code: Uuid,
    country: CountryCode,
    channel: CampaignChannelCodec,
  },
  {
    focus: nullable(boundedString(1, 255)),
    schedule: nullable(Schedule),
    duration: nullable(Duration),
  },
);
export type CreateCampaignRequest = t.TypeOf<typeof CreateCampaignRequest>;

export const UpdateCampaignStatusRequest = struct(
  'UpdateCampaignStatusRequest',
  {
    status: annotate(enumOf('RequestableCampaignStatus', REQUESTABLE_CAMPAIGN_STATUSES), {
      description: 'ACTIVE (resume a PAUSED campaign), PAUSED, COMPLETED (permanent end) or CANCELLED (same as DELETE; terminal)',
    }),
  },
  {},
);

/**
 * A rule value: strings per the contract; plain JSON numbers are accepted too (AMOUNT 10.5)
 * and stored in their string form.
 */
export const RuleValue = annotate(
  new t.Type<string, string, unknown>(
    'RuleValue',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && u.length <= 255
        ? t.success(u)
        : typeof u === 'number' && Number.isFinite(u)
          ? t.success(String(u))
          : t.failure(u, c, 'must be a string (at most 255 characters) or a number'),
    (a) => a,
  ),
  { oneOf: [{ type: 'string', maxLength: 255 }, { type: 'number' }] },
);

/**
 * rule_type and conditional are plain strings here: an unknown rule type or conditional is
 * a 422 validation result (contract), not a 400 decode failure.
 */
export const RuleInput = struct(
  'CampaignRuleInput',
  { rule_type: annotateEnum(boundedString(1, 64), RULE_TYPES) },
  {
    values: nullable(boundedArray(RuleValue, 0, 100)),
    conditional: nullable(annotateEnum(boundedString(1, 64), CONDITIONALS)),
    metadata_key: nullable(boundedString(1, 255)),
  },
);
export type RuleInput = t.TypeOf<typeof RuleInput>;

/** A free string documented with the values that validate (others are a 422, not a 400). */
function annotateEnum<C extends t.Any>(codec: C, values: readonly string[]): C {
  return annotate(codec, { enum: [...values] });
}

export const CreateRulesRequest = struct('CreateCampaignRulesRequest', { rules: boundedArray(RuleInput, 1, 50) }, {});

/** PATCH /v1/rules/{rule_id}: any subset; the merged rule is validated as a whole. */
export const UpdateRuleRequest = struct(
  'UpdateCampaignRuleRequest',
  {},
  {
    rule_type: annotateEnum(boundedString(1, 64), RULE_TYPES),
    values: nullable(boundedArray(RuleValue, 0, 100)),
    conditional: nullable(annotateEnum(boundedString(1, 64), CONDITIONALS)),
    metadata_key: nullable(boundedString(1, 255)),
  },
);
export type UpdateRuleRequest = t.TypeOf<typeof UpdateRuleRequest>;

export const UpdateRuleStatusRequest = struct('UpdateCampaignRuleStatusRequest', { status: RuleStatusCodec }, {});

/** A validated rule: what is stored and evaluated. */
export interface RuleDefinition {
  rule_type: RuleType;
  values: string[];
  conditional: Conditional | null;
  metadata_key: string | null;
}

export const CampaignRule = t.type(
  {
    id: Uuid,
    campaign_id: Uuid,
    rule_type: enumOf('RuleType', RULE_TYPES),
    values: t.array(t.string),
    conditional: nullable(enumOf('Conditional', CONDITIONALS)),
    metadata_key: nullable(t.string),
    status: RuleStatusCodec,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'CampaignRule',
);
export type CampaignRule = t.TypeOf<typeof CampaignRule>;

const CampaignFields = {
  id: Uuid,
  name: t.string,
  account_id: Uuid,
  organization_code: Uuid,
  country: CountryCode,
  channel: CampaignChannelCodec,
  focus: nullable(t.string),
  schedule: nullable(Schedule),
  duration: nullable(Duration),
  status: CampaignStatusCodec,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Campaign = t.type(CampaignFields, 'Campaign');
export type Campaign = t.TypeOf<typeof Campaign>;

export const CampaignWithRules = t.type({ ...CampaignFields, rules: t.array(CampaignRule) }, 'CampaignWithRules');

export const CampaignList = t.type({ data: t.array(Campaign), next_cursor: nullable(t.string) }, 'CampaignList');

export const CampaignRuleList = t.type({ rules: t.array(CampaignRule) }, 'CampaignRuleList');

const declinedPaymentFields = {
  status: nullable(t.string),
  sub_status: nullable(t.string),
  payment_method_type: nullable(t.string),
  provider_id: nullable(t.string),
  card_bin: nullable(t.string),
  response_code: nullable(t.string),
  iso_response_code: nullable(t.string),
  category: nullable(t.string),
  metadata: nullable(t.array(struct('DeclinedMetadataEntry', { key: t.string, value: nullable(t.string) }, {}))),
  customer: nullable(struct('DeclinedCustomer', {}, { id: nullable(t.string), phone: nullable(t.string), email: nullable(t.string) })),
};

/** The declined payment a rule is evaluated against (the payload of a payment.declined event). */
export const DeclinedPayment = struct('DeclinedPayment', { amount: struct('DeclinedAmount', { value: t.number, currency: t.string }, {}) }, declinedPaymentFields);
export type DeclinedPayment = t.TypeOf<typeof DeclinedPayment>;

/** POST /v1/campaigns/{id}/test-events: a sample declined payment, optionally at a given instant. */
export const TestEventRequest = struct(
  'CampaignTestEventRequest',
  { amount: struct('TestEventAmount', { value: annotate(DecimalAmount, { description: 'a sample amount; compared in 0.0001 units' }), currency: CurrencyCode }, {}) },
  { ...declinedPaymentFields, at: annotate(Timestamp, { description: 'when the decline happens; defaults to now (drives the schedule and duration checks)' }) },
);

export const RuleOutcome = t.type(
  {
    rule_id: Uuid,
    rule_type: t.string,
    conditional: nullable(t.string),
    passed: t.boolean,
    reason: t.string,
  },
  'CampaignRuleOutcome',
);

export const TestEventResult = t.type(
  {
    campaign_id: Uuid,
    campaign_status: CampaignStatusCodec,
    would_trigger: t.boolean,
    rules: t.array(RuleOutcome),
    schedule: t.type({ in_window: t.boolean, next_window_at: nullable(Timestamp) }),
    duration: t.type({ in_period: t.boolean }),
    blocked_by: t.array(t.string),
  },
  'CampaignTestEventResult',
);

export const Communication = t.type(
  {
    id: t.string,
    campaign_id: Uuid,
    event_id: t.string,
    payment_id: nullable(t.string),
    channel: CampaignChannelCodec,
    status: enumOf('CommunicationStatus', ['SENDING', 'SENT']),
    recipient: t.type({ phone_last_digits: t.string }),
    user_id: nullable(t.string),
    provider: t.type({ name: t.string, reference: nullable(t.string) }),
    created_at: Timestamp,
    sent_at: nullable(Timestamp),
  },
  'CampaignCommunication',
);

export const CommunicationList = t.type({ data: t.array(Communication), next_cursor: nullable(t.string) }, 'CampaignCommunicationList');
