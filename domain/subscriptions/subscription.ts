/**
 * Subscriptions: recurring charges on an enrolled card. Request codec, cross-field rules,
 * the billing schedule, the record and its rendering.
 *
 * Lifecycle (the subscription workflow enforces it):
 * | from            | event                                                   | to        |
 * |-----------------|---------------------------------------------------------|-----------|
 * | (none)          | created                                                 | ACTIVE, or PENDING with initial_payment_validation |
 * | PENDING         | first payment approved                                  | ACTIVE    |
 * | PENDING         | first payment still declined after the retries          | FAILED    |
 * | ACTIVE          | pause                                                   | PAUSED    |
 * | PAUSED          | resume (periods that fell due while paused are skipped)  | ACTIVE    |
 * | PENDING, ACTIVE, PAUSED | cancel                                          | CANCELED  |
 * | ACTIVE          | billing_cycles.total charged, or the next charge would fall after availability.finish_at | COMPLETED |
 * COMPLETED, CANCELED and FAILED are final.
 *
 * Time: a billing period is the calendar period of `frequency` / `billing_date`; when
 * SUBSCRIPTION_PERIOD_SECONDS > 0 (sandbox and tests) every period, and every unit of a
 * retry interval, lasts that many seconds instead.
 */
import * as t from 'io-ts';
import {
  annotate, boundedString, CountryCode, currencyAmount, DecimalAmount, enumOf, intRange, maxString, metadataList, nullable, PositiveDecimalAmount, struct, Timestamp, Uuid,
} from '../codecs/common';
import type { FieldError } from '../errors';
import { compareAmounts } from '../money';

export const FREQUENCY_TYPES = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export const BILLING_DATE_TYPES = ['DAY_OF_MONTH', 'DAY_OF_WEEK', 'LAST_DAY_OF_MONTH'] as const;
export const RETRY_INTERVAL_TYPES = ['MINUTE', 'HOUR', 'DAY'] as const;
export const SUBSCRIPTION_STATUSES = ['PENDING', 'ACTIVE', 'PAUSED', 'CANCELED', 'COMPLETED', 'FAILED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const FINAL_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['CANCELED', 'COMPLETED', 'FAILED'];

const Amount = currencyAmount('SubscriptionAmount', PositiveDecimalAmount);

export const Frequency = struct('Frequency', { type: enumOf('FrequencyType', FREQUENCY_TYPES), value: annotate(intRange(1, 365, 'FrequencyValue'), { description: 'every `value` periods of `type`' }) }, {});

export const BillingDate = annotate(
  struct('BillingDate', { type: enumOf('BillingDateType', BILLING_DATE_TYPES) }, { day: annotate(intRange(1, 28, 'BillingDay'), { description: 'DAY_OF_MONTH: 1..28; DAY_OF_WEEK: 1 (Monday)..7 (Sunday); not used for LAST_DAY_OF_MONTH' }) }),
  { description: 'Charge on a calendar date instead of every N periods: monthly on a day of the month, weekly on a day of the week, or monthly on the last day. The first charge is the first such date on or after availability.start_at.' },
);

export const Retries = annotate(
  struct('Retries', { max_attempts: annotate(intRange(0, 10, 'RetryAttempts'), { description: 'extra attempts after a declined charge of a cycle' }) }, {
    interval: struct('RetryInterval', { type: enumOf('RetryIntervalType', RETRY_INTERVAL_TYPES), value: intRange(1, 1000, 'RetryIntervalValue') }, {}),
    amount: annotate(Amount, { description: 'amount charged by the retries (e.g. a partial amount); default the cycle amount' }),
  }),
  { description: 'Retrying declined charges: up to max_attempts more attempts, interval apart (default 1 DAY).' },
);

export const SubscriptionCard = struct('SubscriptionCard', {}, {
  installments: intRange(1, 48, 'Installments'),
  usage: annotate(enumOf('CardUsage', ['FIRST', 'USED']), { description: 'required when the vaulted card was enrolled through a customer-initiated payment: FIRST for its first use by this subscription, USED afterwards (with network_transaction_id)' }),
  network_transaction_id: annotate(maxString(255), { description: 'of the initial customer-initiated payment; sent with usage USED' }),
});

export const SubscriptionPaymentMethod = struct(
  'SubscriptionPaymentMethod',
  { type: enumOf('SubscriptionPaymentMethodType', ['CARD']), vaulted_token: annotate(Uuid, { description: 'vaulted_token of a card enrolled for customer_payer.id' }) },
  { card: annotate(SubscriptionCard, { description: 'usage sits directly on card (no stored_credentials wrapper); unknown fields are ignored' }) },
);

export const SubscriptionCreateRequest = struct(
  'SubscriptionCreateRequest',
  {
    name: boundedString(3, 255),
    account_id: Uuid,
    country: CountryCode,
    amount: annotate(Amount, { description: 'amount of each payment' }),
    payment_method: SubscriptionPaymentMethod,
    customer_payer: struct('SubscriptionCustomer', { id: annotate(Uuid, { description: 'the customer the card is enrolled for' }) }, {}),
  },
  {
    description: boundedString(3, 255),
    merchant_reference: annotate(boundedString(3, 255), { description: 'identifies the plan' }),
    frequency: annotate(Frequency, { description: 'exactly one of frequency and billing_date' }),
    billing_date: BillingDate,
    billing_cycles: struct('BillingCyclesInput', { total: intRange(1, 1000, 'BillingCyclesTotal') }, {}),
    trial_period: annotate(struct('TrialPeriod', { billing_cycles: intRange(1, 100, 'TrialCycles'), amount: currencyAmount('TrialAmount', annotate(DecimalAmount, { minimum: 0, description: '0: the trial cycles are not charged' })) }, {}), {
      description: 'the first billing_cycles cycles (counted in billing_cycles.total) are charged trial amount',
    }),
    availability: struct('Availability', {}, { start_at: annotate(Timestamp, { description: 'first charge; default now. A start_at in the past is not backdated: missed cycles are never charged, billing starts at creation (and start_at answers the creation time)' }), finish_at: annotate(nullable(Timestamp), { description: 'no charge after it' }) }),
    metadata: annotate(metadataList(50, 512), { description: 'up to 50 entries; an entry with an empty value unsets its key' }),
    additional_data: nullable(t.UnknownRecord),
    retries: Retries,
    initial_payment_validation: annotate(t.boolean, { description: 'true: the subscription is PENDING until its first payment is approved (FAILED when it never is); default false' }),
  },
);
export type SubscriptionCreateRequest = t.TypeOf<typeof SubscriptionCreateRequest>;

export const SubscriptionMetadataUpdate = struct('SubscriptionMetadataUpdate', { metadata: annotate(metadataList(50, 512), { description: 'merged into the metadata; an empty value unsets the key' }) }, {});

export function subscriptionProblems(r: SubscriptionCreateRequest, now: Date, cardEnrolledByCit: boolean): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, code: string, message: string) => problems.push({ field, code, message });
  if ((r.frequency === undefined) === (r.billing_date === undefined)) add('frequency', 'INVALID', 'exactly one of frequency and billing_date must be given');
  if (r.billing_date?.type === 'DAY_OF_MONTH' && r.billing_date.day === undefined) add('billing_date.day', 'REQUIRED', 'billing_date.day is required for DAY_OF_MONTH');
  if (r.billing_date?.type === 'DAY_OF_WEEK' && (r.billing_date.day === undefined || r.billing_date.day > 7)) add('billing_date.day', r.billing_date.day === undefined ? 'REQUIRED' : 'INVALID', 'billing_date.day must be 1 (Monday) to 7 (Sunday) for DAY_OF_WEEK');
  const card = r.payment_method.card;
  if (cardEnrolledByCit && !card?.usage) add('payment_method.card.usage', 'REQUIRED', 'payment_method.card.usage is required: the card was enrolled through a customer-initiated payment');
  if (card?.network_transaction_id && card.usage !== 'USED') add('payment_method.card.network_transaction_id', 'INVALID', 'network_transaction_id goes with usage USED');
  if (r.trial_period) {
    if (r.trial_period.amount.currency !== r.amount.currency) add('trial_period.amount.currency', 'INVALID', 'trial_period.amount.currency must equal amount.currency');
    if (r.trial_period.amount.value < 0) add('trial_period.amount.value', 'OUT_OF_RANGE', 'trial_period.amount.value must be 0 or more');
    if (r.billing_cycles && r.trial_period.billing_cycles > r.billing_cycles.total) add('trial_period.billing_cycles', 'INVALID', 'trial_period.billing_cycles must not exceed billing_cycles.total');
  }
  const retryAmount = r.retries?.amount;
  if (retryAmount && (retryAmount.currency !== r.amount.currency || compareAmounts(retryAmount.value, r.amount.value) > 0)) add('retries.amount', 'INVALID', 'retries.amount must be in amount.currency and at most amount.value');
  const start = r.availability?.start_at ? new Date(r.availability.start_at) : now;
  const finish = r.availability?.finish_at ? new Date(r.availability.finish_at) : null;
  if (finish && finish.getTime() <= start.getTime()) add('availability.finish_at', 'INVALID', 'availability.finish_at must be after start_at');
  if (finish && finish.getTime() <= now.getTime()) add('availability.finish_at', 'INVALID', 'availability.finish_at must be in the future');
  return problems;
}

// ---- schedule ---------------------------------------------------------------------------------

/**
 * Where billing starts: availability.start_at, or the creation time when start_at is absent or
 * in the past. A backdated subscription never catches up on cycles it was not running for:
 * its first charge is at creation (frequency) or the first billing_date on or after it, and
 * the following cycles count from there.
 */
export function billingStartAt(requestedStartAt: string | undefined, now: Date): string {
  const requested = requestedStartAt ? new Date(requestedStartAt) : null;
  return requested && requested.getTime() > now.getTime() ? requested.toISOString() : now.toISOString();
}

export interface Schedule {
  startAt: string;
  frequency: { type: string; value: number } | null;
  billingDate: { type: string; day: number | null } | null;
  /** > 0: a period lasts this many seconds (test clock). */
  periodSeconds: number;
}

const DAY_MS = 86_400_000;

function addMonthsClamped(date: Date, months: number, day: number | 'LAST'): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = day === 'LAST' ? lastDay : Math.min(day, lastDay);
  return new Date(Date.UTC(y, m, d, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
}

/** When cycle `n` (1-based) is charged. */
export function chargeAt(schedule: Schedule, n: number): Date {
  const start = new Date(schedule.startAt);
  const k = n - 1;
  if (schedule.periodSeconds > 0) return new Date(start.getTime() + k * (schedule.frequency?.value ?? 1) * schedule.periodSeconds * 1000);
  if (schedule.frequency) {
    const v = schedule.frequency.value * k;
    switch (schedule.frequency.type) {
      case 'DAY': return new Date(start.getTime() + v * DAY_MS);
      case 'WEEK': return new Date(start.getTime() + 7 * v * DAY_MS);
      case 'MONTH': return addMonthsClamped(start, v, start.getUTCDate());
      default: return addMonthsClamped(start, 12 * v, start.getUTCDate());
    }
  }
  const bd = schedule.billingDate!;
  if (bd.type === 'DAY_OF_WEEK') {
    const isoDay = ((start.getUTCDay() + 6) % 7) + 1;
    const ahead = ((bd.day ?? 1) - isoDay + 7) % 7;
    return new Date(start.getTime() + (ahead + 7 * k) * DAY_MS);
  }
  const day: number | 'LAST' = bd.type === 'LAST_DAY_OF_MONTH' ? 'LAST' : (bd.day ?? 1);
  const thisMonth = addMonthsClamped(start, 0, day);
  const first = thisMonth.getTime() >= start.getTime() ? thisMonth : addMonthsClamped(start, 1, day);
  return addMonthsClamped(first, k, day);
}

export function retryDelayMs(retries: { interval?: { type: string; value: number } } | null, periodSeconds: number): number {
  const interval = retries?.interval ?? { type: 'DAY', value: 1 };
  if (periodSeconds > 0) return interval.value * periodSeconds * 1000;
  const unit = interval.type === 'MINUTE' ? 60_000 : interval.type === 'HOUR' ? 3_600_000 : DAY_MS;
  return interval.value * unit;
}

// ---- record ----------------------------------------------------------------------------------

export interface SubscriptionCharge {
  cycle: number;
  attempt: number;
  payment_id: string | null;
  amount: number;
  status: string;
  sub_status: string | null;
  created_at: string;
}

export interface SubscriptionRecord {
  id: string;
  version: number;
  organization_code: string;
  account_id: string;
  name: string;
  description: string | null;
  merchant_reference: string | null;
  country: string;
  status: SubscriptionStatus;
  amount: { currency: string; value: number };
  payment_method: { type: 'CARD'; vaulted_token: string; card: { installments: number | null; usage: string | null; network_transaction_id: string | null } };
  frequency: { type: string; value: number } | null;
  billing_date: { type: string; day: number | null } | null;
  billing_cycles: { total: number | null; current: number; next_at: string | null };
  customer_payer: { id: string };
  trial_period: { billing_cycles: number; amount: { currency: string; value: number } } | null;
  availability: { start_at: string; finish_at: string | null };
  metadata: Array<{ key: string; value: string }>;
  additional_data: Record<string, unknown> | null;
  retries: { max_attempts: number; interval: { type: string; value: number }; amount: { currency: string; value: number } | null };
  initial_payment_validation: boolean;
  charges: SubscriptionCharge[];
  /** Periods that fell due while PAUSED: skipped, neither charged nor counted (internal). */
  skipped_periods: number;
  created_at: string;
  updated_at: string;
}

export function withSubscriptionChanges(record: SubscriptionRecord, changes: Partial<SubscriptionRecord>, at: string): SubscriptionRecord {
  return { ...record, ...changes, version: record.version + 1, updated_at: at };
}

/** When cycle `cycle` of this record is due, periods skipped by pauses included. */
export function dueAt(record: SubscriptionRecord, schedule: Schedule, cycle: number): Date {
  return chargeAt(schedule, cycle + record.skipped_periods);
}

export function scheduleOf(record: SubscriptionRecord, periodSeconds: number): Schedule {
  return { startAt: record.availability.start_at, frequency: record.frequency, billingDate: record.billing_date, periodSeconds };
}

/** The amount of cycle `n` (trial cycles first). */
export function cycleAmount(record: SubscriptionRecord, n: number): number {
  return record.trial_period && n <= record.trial_period.billing_cycles ? record.trial_period.amount.value : record.amount.value;
}

const str = nullable(t.string);

export const Subscription = t.type(
  {
    id: Uuid,
    name: t.string,
    description: str,
    merchant_reference: str,
    account_id: Uuid,
    country: t.string,
    status: annotate(enumOf('SubscriptionStatus', SUBSCRIPTION_STATUSES), { description: 'ACTIVE (or PENDING with initial_payment_validation), PAUSED, then COMPLETED, CANCELED or FAILED' }),
    amount: t.type({ currency: t.string, value: t.number }),
    payment_method: t.type({ type: t.string, vaulted_token: t.string, card: t.type({ installments: nullable(t.number), usage: str, network_transaction_id: str }) }),
    frequency: nullable(t.type({ type: t.string, value: t.number })),
    billing_date: nullable(t.type({ type: t.string, day: nullable(t.number) })),
    billing_cycles: annotate(t.type({ total: nullable(t.number), current: t.number, next_at: str }), { description: 'current: the cycle being billed (starts at 1); next_at: when it is charged (null once final)' }),
    customer_payer: t.type({ id: t.string }),
    trial_period: nullable(t.type({ billing_cycles: t.number, amount: t.type({ currency: t.string, value: t.number }) })),
    availability: t.type({ start_at: t.string, finish_at: str }),
    metadata: t.array(t.type({ key: t.string, value: t.string })),
    additional_data: nullable(t.UnknownRecord),
    retries: t.type({ max_attempts: t.number, interval: t.type({ type: t.string, value: t.number }), amount: nullable(t.type({ currency: t.string, value: t.number })) }),
    initial_payment_validation: t.boolean,
    charges: annotate(t.array(t.type({ cycle: t.number, attempt: t.number, payment_id: str, amount: t.number, status: t.string, sub_status: str, created_at: t.string })), {
      description: 'every charge attempt, oldest first; payment_id reads the payment with GET /v1/payments/{payment_id}',
    }),
    created_at: t.string,
    updated_at: t.string,
  },
  'Subscription',
);

export function renderSubscription(r: SubscriptionRecord): t.TypeOf<typeof Subscription> {
  const { organization_code: _o, version: _v, skipped_periods: _s, ...rest } = r;
  return rest;
}
