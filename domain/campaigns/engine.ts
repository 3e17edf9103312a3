/**
 * The rule engine: does a declined payment pass a campaign's ACTIVE rules (logical AND)?
 *
 * Field-matching rules are decided here. The two rate-limiting rules only need the
 * `user_id` metadata entry here; their limits are enforced at send time with unique-key
 * reservations (activities/campaign-trigger.ts), since they depend on what was sent before.
 *
 * A field the payment does not carry fails every positive conditional and passes the
 * negative ones (NOT_EQUAL, NOT_ONE_OF): "provider is not X" holds when there is none.
 */
import { compareAmounts, isValidDecimal } from '../money';
import type { CampaignStatus, Conditional, DeclinedPayment, Duration, RuleDefinition, Schedule } from './codecs';
import { isInPeriod, isInWindow, nextSendTime } from './schedule';
import { isRateLimitRule } from './validation';

export interface RuleEvaluation {
  passed: boolean;
  reason: string;
}

export const USER_ID_METADATA_KEY = 'user_id';

export function metadataValue(payment: DeclinedPayment, key: string): string | null {
  const entry = (payment.metadata ?? []).find((e) => e.key === key);
  return entry?.value ?? null;
}

export function userIdOf(payment: DeclinedPayment): string | null {
  const value = metadataValue(payment, USER_ID_METADATA_KEY);
  return value && value.trim() ? value : null;
}

/** The payment field a rule type looks at, as text (null when absent). */
function fieldOf(rule: RuleDefinition, payment: DeclinedPayment): string | null {
  switch (rule.rule_type) {
    case 'AMOUNT':
    case 'AMOUNT_AND_CURRENCY':
      return String(payment.amount.value);
    case 'CURRENCY':
      return payment.amount.currency;
    case 'PAYMENT_STATUS':
      return payment.status ?? null;
    case 'PAYMENT_METHOD':
      return payment.payment_method_type ?? null;
    case 'PROVIDER':
      return payment.provider_id ?? null;
    case 'CARD_BIN':
      return payment.card_bin ?? null;
    case 'RESPONSE_CODE':
      return payment.response_code ?? null;
    case 'ISO_RESPONSE_CODE':
      return payment.iso_response_code ?? null;
    case 'CATEGORY':
      return payment.category ?? null;
    case 'METADATA':
      return metadataValue(payment, rule.metadata_key ?? '');
    default:
      return null;
  }
}

const NEGATIVE: readonly Conditional[] = ['NOT_EQUAL', 'NOT_ONE_OF'];

function asAmount(text: string): number | null {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) return null;
  const n = Number(text);
  return isValidDecimal(n) ? n : null;
}

export function evaluateRule(rule: RuleDefinition, payment: DeclinedPayment): RuleEvaluation {
  if (isRateLimitRule(rule.rule_type)) {
    return userIdOf(payment)
      ? { passed: true, reason: `${rule.rule_type} is enforced per user_id when the communication is sent` }
      : { passed: false, reason: `${rule.rule_type} needs a user_id entry in the payment metadata` };
  }
  const conditional = rule.conditional!;
  let compared = rule.values;
  if (rule.rule_type === 'AMOUNT_AND_CURRENCY') {
    const currency = compared[compared.length - 1];
    if (payment.amount.currency !== currency) return { passed: false, reason: `currency ${payment.amount.currency} is not ${currency}` };
    compared = compared.slice(0, -1);
  }
  const actual = fieldOf(rule, payment);
  if (actual === null) {
    const passed = NEGATIVE.includes(conditional);
    return { passed, reason: `the payment has no ${describeField(rule)}` };
  }
  const numeric = rule.rule_type === 'AMOUNT' || rule.rule_type === 'AMOUNT_AND_CURRENCY' || isNumeric(conditional);
  const passed = numeric ? compareNumeric(conditional, actual, compared) : compareText(conditional, actual, compared);
  return { passed, reason: `${describeField(rule)} ${JSON.stringify(actual)} ${passed ? 'satisfies' : 'does not satisfy'} ${conditional} ${JSON.stringify(rule.values)}` };
}

function isNumeric(conditional: Conditional): boolean {
  return ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN', 'LESS_THAN_OR_EQUAL', 'BETWEEN'].includes(conditional);
}

function describeField(rule: RuleDefinition): string {
  return rule.rule_type === 'METADATA' ? `metadata "${rule.metadata_key}"` : rule.rule_type.toLowerCase();
}

/** Money and numeric metadata: compared in 0.0001 units (domain/money), never as floats. */
function compareNumeric(conditional: Conditional, actualText: string, values: string[]): boolean {
  const actual = asAmount(actualText);
  if (actual === null) return NEGATIVE.includes(conditional);
  const cmp = (text: string) => {
    const value = asAmount(text);
    return value === null ? null : compareAmounts(actual, value);
  };
  const c0 = cmp(values[0]);
  switch (conditional) {
    case 'EQUAL':
      return c0 === 0;
    case 'NOT_EQUAL':
      return c0 !== 0;
    case 'ONE_OF':
    case 'IN':
      return values.some((v) => cmp(v) === 0);
    case 'NOT_ONE_OF':
      return values.every((v) => cmp(v) !== 0);
    case 'GREATER_THAN':
      return c0 === 1;
    case 'GREATER_THAN_OR_EQUAL':
      return c0 === 1 || c0 === 0;
    case 'LESS_THAN':
      return c0 === -1;
    case 'LESS_THAN_OR_EQUAL':
      return c0 === -1 || c0 === 0;
    case 'BETWEEN': {
      const upper = cmp(values[1]);
      return (c0 === 1 || c0 === 0) && (upper === -1 || upper === 0);
    }
    default:
      return false;
  }
}

function compareText(conditional: Conditional, actual: string, values: string[]): boolean {
  switch (conditional) {
    case 'EQUAL':
      return actual === values[0];
    case 'NOT_EQUAL':
      return actual !== values[0];
    case 'ONE_OF':
    case 'IN':
      return values.includes(actual);
    case 'NOT_ONE_OF':
      return !values.includes(actual);
    case 'CONTAINS': {
      const haystack = actual.toLowerCase();
      return values.some((v) => haystack.includes(v.toLowerCase()));
    }
    case 'STARTS_WITH':
      return values.some((v) => actual.startsWith(v));
    default:
      return false;
  }
}

export interface EvaluatedRule<R extends RuleDefinition> {
  rule: R;
  evaluation: RuleEvaluation;
}

/**
 * Evaluates every ACTIVE rule; the payment matches when all pass (INACTIVE rules are
 * ignored). A campaign without ACTIVE rules matches nothing: rules are added after the
 * campaign is created, and an empty rule set must not message every declined customer.
 */
export function evaluateRules<R extends RuleDefinition & { status: string }>(
  rules: R[],
  payment: DeclinedPayment,
): { matched: boolean; results: EvaluatedRule<R>[] } {
  const results = rules.filter((r) => r.status === 'ACTIVE').map((rule) => ({ rule, evaluation: evaluateRule(rule, payment) }));
  return { matched: results.length > 0 && results.every((r) => r.evaluation.passed), results };
}

export type TriggerBlock = 'CAMPAIGN_NOT_ACTIVE' | 'OUTSIDE_DURATION' | 'NO_ACTIVE_RULES' | 'RULES_FAILED';

/**
 * Would a declined payment at `at` trigger the campaign, and when would it be sent? Used by
 * the trigger and by the merchant's dry run (test-events). Rate limits are not part of it:
 * they depend on what was sent before and are enforced at send time.
 */
export function assessCampaign<R extends RuleDefinition & { status: string }>(
  campaign: { status: CampaignStatus; schedule: Schedule | null; duration: Duration | null },
  rules: R[],
  payment: DeclinedPayment,
  at: Date,
) {
  const evaluation = evaluateRules(rules, payment);
  const inPeriod = isInPeriod(campaign.duration, at);
  const blockedBy: TriggerBlock[] = [];
  if (campaign.status !== 'ACTIVE') blockedBy.push('CAMPAIGN_NOT_ACTIVE');
  if (!inPeriod) blockedBy.push('OUTSIDE_DURATION');
  if (evaluation.results.length === 0) blockedBy.push('NO_ACTIVE_RULES');
  else if (!evaluation.matched) blockedBy.push('RULES_FAILED');
  const inWindow = !campaign.schedule || isInWindow(campaign.schedule, at);
  return { triggers: blockedBy.length === 0, blockedBy, evaluation, inPeriod, inWindow, sendAt: nextSendTime(campaign.schedule, at) };
}
