/**
 * The contract's rule table (which conditional applies to which rule type, how many values
 * each takes) and the cross-field checks of a campaign. Every failure here is a 422.
 *
 * AMOUNT_AND_CURRENCY carries its currency as one extra, last value: [amount, currency]
 * for the one-value conditionals, [min, max, currency] for BETWEEN (the contract's "3 for
 * AMOUNT_AND_CURRENCY"), [amount, ..., currency] for ONE_OF / NOT_ONE_OF / IN.
 */
import type { FieldError } from '../errors';
import { CurrencyCode } from '../codecs/common';
import { isValidDecimal, compareAmounts, currencyAmountProblem } from '../money';
import {
  Conditional,
  CONDITIONALS,
  Duration,
  RuleDefinition,
  RuleInput,
  RuleType,
  RULE_TYPES,
  Schedule,
} from './codecs';

const NUMERIC_CONDITIONALS: readonly Conditional[] = ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN', 'LESS_THAN_OR_EQUAL', 'BETWEEN'];
const UNIVERSAL_CONDITIONALS: readonly Conditional[] = ['EQUAL', 'NOT_EQUAL', 'ONE_OF', 'NOT_ONE_OF', 'IN'];
const RATE_LIMIT_TYPES: readonly RuleType[] = ['USER_COMMS_PER_DAY', 'UNIQUE_BY_USER'];

/** Conditionals allowed per rule type (contract, "Conditional operators"). */
export function conditionalsFor(ruleType: RuleType): readonly Conditional[] {
  if (RATE_LIMIT_TYPES.includes(ruleType)) return [];
  const allowed: Conditional[] = [...UNIVERSAL_CONDITIONALS];
  if (ruleType === 'AMOUNT' || ruleType === 'AMOUNT_AND_CURRENCY' || ruleType === 'METADATA') allowed.push(...NUMERIC_CONDITIONALS);
  if (ruleType === 'METADATA') allowed.push('CONTAINS');
  if (ruleType === 'CARD_BIN' || ruleType === 'METADATA') allowed.push('STARTS_WITH');
  return allowed;
}

export function isRateLimitRule(ruleType: RuleType): boolean {
  return RATE_LIMIT_TYPES.includes(ruleType);
}

export function isNumericConditional(conditional: Conditional): boolean {
  return NUMERIC_CONDITIONALS.includes(conditional);
}

/** How many values the conditional compares with: [min, max] (max null = no upper bound). */
function comparedValueCount(conditional: Conditional): [number, number | null] {
  switch (conditional) {
    case 'BETWEEN':
      return [2, 2];
    case 'ONE_OF':
    case 'NOT_ONE_OF':
    case 'IN':
    case 'CONTAINS':
    case 'STARTS_WITH':
      return [1, null];
    default:
      return [1, 1];
  }
}

const BIN_PREFIX = /^\d{1,8}$/;
const MAX_DAILY_LIMIT = 1000;

export type RuleValidation = { ok: true; rule: RuleDefinition } | { ok: false; errors: FieldError[] };

/**
 * Validates one rule against the table. `field` prefixes error paths (e.g. "rules.2").
 */
export function validateRule(input: RuleInput, field = ''): RuleValidation {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const errors: FieldError[] = [];
  const fail = (name: string, message: string, code = 'INVALID') => errors.push({ field: at(name), code, message: `${at(name)} ${message}` });

  if (!(RULE_TYPES as readonly string[]).includes(input.rule_type)) {
    fail('rule_type', `must be one of ${RULE_TYPES.join(', ')}`, 'INVALID_RULE_TYPE');
    return { ok: false, errors };
  }
  const ruleType = input.rule_type as RuleType;
  const values = input.values ?? [];
  const conditionalText = input.conditional ?? null;
  const metadataKey = input.metadata_key ?? null;

  if (metadataKey !== null && ruleType !== 'METADATA') fail('metadata_key', 'is only allowed for METADATA rules', 'METADATA_KEY_NOT_ALLOWED');
  if (ruleType === 'METADATA' && (metadataKey === null || metadataKey.trim() === '')) fail('metadata_key', 'is required for METADATA rules', 'METADATA_KEY_REQUIRED');

  if (ruleType === 'UNIQUE_BY_USER') {
    if (conditionalText !== null) fail('conditional', 'is not allowed for UNIQUE_BY_USER rules', 'CONDITIONAL_NOT_ALLOWED');
    if (values.length > 0) fail('values', 'are not allowed for UNIQUE_BY_USER rules', 'VALUES_NOT_ALLOWED');
    return result(errors, { rule_type: ruleType, values: [], conditional: null, metadata_key: null });
  }
  if (ruleType === 'USER_COMMS_PER_DAY') {
    if (conditionalText !== null) fail('conditional', 'is not allowed for USER_COMMS_PER_DAY rules', 'CONDITIONAL_NOT_ALLOWED');
    if (values.length !== 1) fail('values', 'must hold exactly 1 value (the daily limit per user)', 'WRONG_VALUE_COUNT');
    else if (!/^\d+$/.test(values[0]) || Number(values[0]) < 1 || Number(values[0]) > MAX_DAILY_LIMIT) {
      fail('values.0', `must be a whole number from 1 to ${MAX_DAILY_LIMIT}`, 'INVALID_VALUE');
    }
    return result(errors, { rule_type: ruleType, values: values.map((v) => String(Number(v))), conditional: null, metadata_key: null });
  }

  if (conditionalText === null) {
    fail('conditional', `is required for ${ruleType} rules`, 'CONDITIONAL_REQUIRED');
    return { ok: false, errors };
  }
  if (!(CONDITIONALS as readonly string[]).includes(conditionalText)) {
    fail('conditional', `must be one of ${CONDITIONALS.join(', ')}`, 'INVALID_CONDITIONAL');
    return { ok: false, errors };
  }
  const conditional = conditionalText as Conditional;
  if (!conditionalsFor(ruleType).includes(conditional)) {
    fail('conditional', `${conditional} does not apply to ${ruleType} rules (allowed: ${conditionalsFor(ruleType).join(', ')})`, 'CONDITIONAL_NOT_APPLICABLE');
    return { ok: false, errors };
  }

  // AMOUNT_AND_CURRENCY: the compared values, then one currency.
  const withCurrency = ruleType === 'AMOUNT_AND_CURRENCY';
  const compared = withCurrency ? values.slice(0, -1) : values;
  const [min, max] = comparedValueCount(conditional);
  const extra = withCurrency ? 1 : 0;
  if (compared.length < min || (max !== null && compared.length > max) || (withCurrency && values.length === 0)) {
    const expected = max === null ? `at least ${min + extra}` : `exactly ${min + extra}`;
    const shape = withCurrency ? (conditional === 'BETWEEN' ? ' ([min, max, currency])' : ' (amounts, then the currency)') : conditional === 'BETWEEN' ? ' ([min, max])' : '';
    fail('values', `must hold ${expected} value${min + extra === 1 && max !== null ? '' : 's'} for ${conditional}${shape}`, 'WRONG_VALUE_COUNT');
    return { ok: false, errors };
  }

  const numeric = ruleType === 'AMOUNT' || withCurrency || isNumericConditional(conditional);
  compared.forEach((value, i) => {
    if (numeric && !isDecimalText(value)) fail(`values.${i}`, 'must be a number with at most 4 decimal places', 'INVALID_VALUE');
    else if (ruleType === 'CURRENCY' && !CurrencyCode.is(value)) fail(`values.${i}`, 'must be an ISO 4217 currency code in upper case (e.g. USD)', 'INVALID_VALUE');
    else if (ruleType === 'CARD_BIN' && !BIN_PREFIX.test(value)) fail(`values.${i}`, 'must be 1 to 8 digits', 'INVALID_VALUE');
    else if (value.trim() === '') fail(`values.${i}`, 'must not be empty', 'INVALID_VALUE');
  });
  const currency = values[values.length - 1];
  if (withCurrency && !CurrencyCode.is(currency)) {
    fail(`values.${values.length - 1}`, 'must be an ISO 4217 currency code in upper case (last value of AMOUNT_AND_CURRENCY)', 'INVALID_VALUE');
  } else if (withCurrency && errors.length === 0) {
    // The compared amounts are amounts of that currency: its minor unit and maximum apply.
    compared.forEach((value, i) => {
      const problem = currencyAmountProblem(Math.abs(Number(value)), currency);
      if (problem) fail(`values.${i}`, problem, 'INVALID_VALUE');
    });
  }
  if (conditional === 'BETWEEN' && errors.length === 0 && compareAmounts(Number(compared[0]), Number(compared[1])) > 0) {
    fail('values', 'BETWEEN needs min <= max', 'INVALID_RANGE');
  }
  const normalized = numeric ? [...compared.map((v) => String(Number(v))), ...(withCurrency ? [values[values.length - 1]] : [])] : values;
  return result(errors, { rule_type: ruleType, values: normalized, conditional, metadata_key: metadataKey });
}

function result(errors: FieldError[], rule: RuleDefinition): RuleValidation {
  return errors.length ? { ok: false, errors } : { ok: true, rule };
}

/** A decimal number written as text, at most 4 places (money is compared in 0.0001 units). */
export function isDecimalText(text: string): boolean {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) return false;
  const n = Number(text);
  return Number.isFinite(n) && isValidDecimal(n);
}

/** Validates a list of rules all-or-nothing: either every rule or the errors of all of them. */
export function validateRules(inputs: RuleInput[]): { ok: true; rules: RuleDefinition[] } | { ok: false; errors: FieldError[] } {
  const rules: RuleDefinition[] = [];
  const errors: FieldError[] = [];
  inputs.forEach((input, i) => {
    const checked = validateRule(input, `rules.${i}`);
    if (checked.ok) rules.push(checked.rule);
    else errors.push(...checked.errors);
  });
  return errors.length ? { ok: false, errors } : { ok: true, rules };
}

/** Cross-field checks of a campaign's schedule and duration (422 when any fails). */
export function validateCampaignWindow(schedule: Schedule | null | undefined, duration: Duration | null | undefined, now: Date): FieldError[] {
  const errors: FieldError[] = [];
  if (schedule && schedule.daily_start_time === schedule.daily_end_time) {
    errors.push({ field: 'schedule.daily_end_time', code: 'EMPTY_WINDOW', message: 'schedule.daily_end_time must differ from daily_start_time (an overnight window such as 22:00 to 06:00 is allowed)' });
  }
  if (duration?.end_at) {
    const start = Date.parse(duration.start_at);
    const end = Date.parse(duration.end_at);
    if (end <= start) errors.push({ field: 'duration.end_at', code: 'END_BEFORE_START', message: 'duration.end_at must be after duration.start_at' });
    else if (end <= now.getTime()) errors.push({ field: 'duration.end_at', code: 'END_IN_PAST', message: 'duration.end_at must be in the future' });
  }
  return errors;
}
