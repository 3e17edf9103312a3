import assert from 'node:assert/strict';
import { CreateCampaignRequest, DeclinedPayment, RuleDefinition, RuleInput, Schedule } from '../../domain/campaigns/codecs';
import { evaluateRule, evaluateRules } from '../../domain/campaigns/engine';
import { checkCampaignTransition } from '../../domain/campaigns/lifecycle';
import { dayKey, isInPeriod, isInWindow, nextSendTime } from '../../domain/campaigns/schedule';
import { conditionalsFor, validateCampaignWindow, validateRule, validateRules } from '../../domain/campaigns/validation';
import { CAMPAIGN_STATUSES, CONDITIONALS, RULE_TYPES } from '../../domain/campaigns/codecs';

function errorsOf(input: RuleInput) {
  const checked = validateRule(input);
  return checked.ok ? [] : checked.errors;
}

function accepts(input: RuleInput): RuleDefinition {
  const checked = validateRule(input);
  assert.ok(checked.ok, `expected ${JSON.stringify(input)} to validate: ${JSON.stringify(!checked.ok && checked.errors)}`);
  return checked.rule;
}

function rejects(input: RuleInput, code: string, field?: string) {
  const errors = errorsOf(input);
  assert.ok(errors.length > 0, `expected ${JSON.stringify(input)} to be rejected`);
  assert.ok(errors.some((e) => e.code === code && (!field || e.field === field)), `expected ${code} on ${field}, got ${JSON.stringify(errors)}`);
}

const payment: DeclinedPayment = {
  amount: { value: 150.5, currency: 'USD' },
  status: 'DECLINED',
  sub_status: 'REJECTED_BY_BANK',
  payment_method_type: 'CARD',
  provider_id: 'SANDBOX',
  card_bin: '41111111',
  response_code: 'INSUFFICIENT_FUNDS',
  iso_response_code: '51',
  category: 'CARD',
  metadata: [
    { key: 'user_id', value: 'user-42' },
    { key: 'tier', value: 'Gold Plus' },
    { key: 'score', value: '12.5' },
  ],
  customer: { id: 'c1', phone: '+573001234567' },
};

const rule = (r: Partial<RuleDefinition> & Pick<RuleDefinition, 'rule_type'>): RuleDefinition => ({ values: [], conditional: null, metadata_key: null, ...r });

describe('campaigns (unit)', () => {
  describe('rule validation table', () => {
    it('rejects an unknown rule type and an unknown conditional', () => {
      rejects({ rule_type: 'COLOR', values: ['x'], conditional: 'EQUAL' }, 'INVALID_RULE_TYPE', 'rule_type');
      rejects({ rule_type: 'AMOUNT', values: ['1'], conditional: 'ALMOST' }, 'INVALID_CONDITIONAL', 'conditional');
      rejects({ rule_type: 'AMOUNT', values: ['1'] }, 'CONDITIONAL_REQUIRED', 'conditional');
    });

    it('applies each conditional only to the rule types of the table', () => {
      const numeric = ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN', 'LESS_THAN_OR_EQUAL', 'BETWEEN'];
      const expected: Record<string, string[]> = {};
      for (const type of RULE_TYPES) {
        const set = ['USER_COMMS_PER_DAY', 'UNIQUE_BY_USER'].includes(type) ? [] : ['EQUAL', 'NOT_EQUAL', 'ONE_OF', 'NOT_ONE_OF', 'IN'];
        if (['AMOUNT', 'AMOUNT_AND_CURRENCY', 'METADATA'].includes(type)) set.push(...numeric);
        if (type === 'METADATA') set.push('CONTAINS');
        if (['CARD_BIN', 'METADATA'].includes(type)) set.push('STARTS_WITH');
        expected[type] = set.sort();
      }
      for (const type of RULE_TYPES) assert.deepEqual([...conditionalsFor(type)].sort(), expected[type], type);
      rejects({ rule_type: 'CURRENCY', values: ['10'], conditional: 'GREATER_THAN' }, 'CONDITIONAL_NOT_APPLICABLE');
      rejects({ rule_type: 'PROVIDER', values: ['X'], conditional: 'CONTAINS' }, 'CONDITIONAL_NOT_APPLICABLE');
      rejects({ rule_type: 'PROVIDER', values: ['X'], conditional: 'STARTS_WITH' }, 'CONDITIONAL_NOT_APPLICABLE');
      rejects({ rule_type: 'CARD_BIN', values: ['4'], conditional: 'CONTAINS' }, 'CONDITIONAL_NOT_APPLICABLE');
      rejects({ rule_type: 'AMOUNT', values: ['4'], conditional: 'CONTAINS' }, 'CONDITIONAL_NOT_APPLICABLE');
      accepts({ rule_type: 'CARD_BIN', values: ['4111'], conditional: 'STARTS_WITH' });
      accepts({ rule_type: 'METADATA', metadata_key: 'tier', values: ['gold'], conditional: 'CONTAINS' });
    });

    it('EQUAL and NOT_EQUAL take exactly one value', () => {
      for (const conditional of ['EQUAL', 'NOT_EQUAL']) {
        accepts({ rule_type: 'PROVIDER', values: ['A'], conditional });
        rejects({ rule_type: 'PROVIDER', values: ['A', 'B'], conditional }, 'WRONG_VALUE_COUNT');
        rejects({ rule_type: 'PROVIDER', values: [], conditional }, 'WRONG_VALUE_COUNT');
      }
    });

    it('ONE_OF, NOT_ONE_OF, IN, CONTAINS, STARTS_WITH take one or more values', () => {
      for (const conditional of ['ONE_OF', 'NOT_ONE_OF', 'IN']) {
        accepts({ rule_type: 'RESPONSE_CODE', values: ['A'], conditional });
        accepts({ rule_type: 'RESPONSE_CODE', values: ['A', 'B', 'C'], conditional });
        rejects({ rule_type: 'RESPONSE_CODE', values: [], conditional }, 'WRONG_VALUE_COUNT');
      }
      accepts({ rule_type: 'METADATA', metadata_key: 'k', values: ['a', 'b'], conditional: 'CONTAINS' });
      rejects({ rule_type: 'METADATA', metadata_key: 'k', values: [], conditional: 'CONTAINS' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'CARD_BIN', values: [], conditional: 'STARTS_WITH' }, 'WRONG_VALUE_COUNT');
    });

    it('numeric comparisons take one number; BETWEEN takes [min, max]', () => {
      for (const conditional of ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN', 'LESS_THAN_OR_EQUAL']) {
        accepts({ rule_type: 'AMOUNT', values: ['10.5'], conditional });
        rejects({ rule_type: 'AMOUNT', values: ['10', '20'], conditional }, 'WRONG_VALUE_COUNT');
        rejects({ rule_type: 'METADATA', metadata_key: 'score', values: ['ten'], conditional }, 'INVALID_VALUE', 'values.0');
      }
      assert.deepEqual(accepts({ rule_type: 'AMOUNT', values: ['10', '20'], conditional: 'BETWEEN' }).values, ['10', '20']);
      rejects({ rule_type: 'AMOUNT', values: ['10'], conditional: 'BETWEEN' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'AMOUNT', values: ['10', '20', '30'], conditional: 'BETWEEN' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'AMOUNT', values: ['20', '10'], conditional: 'BETWEEN' }, 'INVALID_RANGE');
      rejects({ rule_type: 'AMOUNT', values: ['10.00001'], conditional: 'EQUAL' }, 'INVALID_VALUE');
      accepts({ rule_type: 'AMOUNT', values: ['10.0001'], conditional: 'EQUAL' });
    });

    it('AMOUNT_AND_CURRENCY carries the currency as the last value: 2 for one-value conditionals, 3 for BETWEEN', () => {
      accepts({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['100', 'USD'], conditional: 'GREATER_THAN' });
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['100'], conditional: 'GREATER_THAN' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['100', '200'], conditional: 'GREATER_THAN' }, 'INVALID_VALUE', 'values.1');
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['100', '200', 'USD'], conditional: 'GREATER_THAN' }, 'WRONG_VALUE_COUNT');
      assert.deepEqual(accepts({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['10', '20', 'USD'], conditional: 'BETWEEN' }).values, ['10', '20', 'USD']);
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['10', 'USD'], conditional: 'BETWEEN' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['10', '20', '30', 'USD'], conditional: 'BETWEEN' }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: ['10', '20', 'usd'], conditional: 'BETWEEN' }, 'INVALID_VALUE', 'values.2');
      rejects({ rule_type: 'AMOUNT_AND_CURRENCY', values: [], conditional: 'ONE_OF' }, 'WRONG_VALUE_COUNT');
    });

    it('METADATA needs metadata_key; other types refuse it', () => {
      rejects({ rule_type: 'METADATA', values: ['x'], conditional: 'EQUAL' }, 'METADATA_KEY_REQUIRED', 'metadata_key');
      rejects({ rule_type: 'METADATA', metadata_key: ' ', values: ['x'], conditional: 'EQUAL' }, 'METADATA_KEY_REQUIRED');
      accepts({ rule_type: 'METADATA', metadata_key: 'tier', values: ['x'], conditional: 'EQUAL' });
      rejects({ rule_type: 'PROVIDER', metadata_key: 'tier', values: ['x'], conditional: 'EQUAL' }, 'METADATA_KEY_NOT_ALLOWED');
    });

    it('USER_COMMS_PER_DAY takes one limit and no conditional', () => {
      assert.deepEqual(accepts({ rule_type: 'USER_COMMS_PER_DAY', values: ['1'] }), { rule_type: 'USER_COMMS_PER_DAY', values: ['1'], conditional: null, metadata_key: null });
      accepts({ rule_type: 'USER_COMMS_PER_DAY', values: ['1000'] });
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: ['0'] }, 'INVALID_VALUE');
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: ['1001'] }, 'INVALID_VALUE');
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: ['1.5'] }, 'INVALID_VALUE');
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: [] }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: ['1', '2'] }, 'WRONG_VALUE_COUNT');
      rejects({ rule_type: 'USER_COMMS_PER_DAY', values: ['1'], conditional: 'EQUAL' }, 'CONDITIONAL_NOT_ALLOWED');
    });

    it('UNIQUE_BY_USER takes neither values nor conditional', () => {
      accepts({ rule_type: 'UNIQUE_BY_USER' });
      accepts({ rule_type: 'UNIQUE_BY_USER', values: [], conditional: null });
      rejects({ rule_type: 'UNIQUE_BY_USER', values: ['1'] }, 'VALUES_NOT_ALLOWED');
      rejects({ rule_type: 'UNIQUE_BY_USER', conditional: 'EQUAL' }, 'CONDITIONAL_NOT_ALLOWED');
    });

    it('checks value shapes: currency codes and BIN prefixes', () => {
      accepts({ rule_type: 'CURRENCY', values: ['USD', 'COP'], conditional: 'ONE_OF' });
      rejects({ rule_type: 'CURRENCY', values: ['US'], conditional: 'EQUAL' }, 'INVALID_VALUE');
      accepts({ rule_type: 'CARD_BIN', values: ['41111111'], conditional: 'EQUAL' });
      rejects({ rule_type: 'CARD_BIN', values: ['411111111'], conditional: 'EQUAL' }, 'INVALID_VALUE');
      rejects({ rule_type: 'CARD_BIN', values: ['41a'], conditional: 'STARTS_WITH' }, 'INVALID_VALUE');
    });

    it('validates a batch all-or-nothing, reporting each failing rule by index', () => {
      const result = validateRules([
        { rule_type: 'AMOUNT', values: ['10'], conditional: 'GREATER_THAN' },
        { rule_type: 'METADATA', values: ['x'], conditional: 'EQUAL' },
        { rule_type: 'UNIQUE_BY_USER', values: ['1'] },
      ]);
      assert.equal(result.ok, false);
      assert.deepEqual(!result.ok && result.errors.map((e) => e.field), ['rules.1.metadata_key', 'rules.2.values']);
    });
  });

  describe('campaign window checks', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    it('end_at must be after start_at and in the future; the daily window must not be empty', () => {
      assert.deepEqual(validateCampaignWindow(null, { start_at: '2026-02-01T00:00:00Z', end_at: '2026-02-01T00:00:01Z' }, now), []);
      assert.equal(validateCampaignWindow(null, { start_at: '2026-02-01T00:00:00Z', end_at: '2026-02-01T00:00:00Z' }, now)[0].code, 'END_BEFORE_START');
      assert.equal(validateCampaignWindow(null, { start_at: '2025-01-01T00:00:00Z', end_at: '2025-12-31T23:59:59Z' }, now)[0].code, 'END_IN_PAST');
      assert.deepEqual(validateCampaignWindow(null, { start_at: '2025-01-01T00:00:00Z', end_at: null }, now), []);
      assert.equal(validateCampaignWindow({ daily_start_time: '09:00', daily_end_time: '09:00', time_zone: 'UTC' }, null, now)[0].code, 'EMPTY_WINDOW');
      assert.deepEqual(validateCampaignWindow({ daily_start_time: '22:00', daily_end_time: '06:00', time_zone: 'UTC' }, null, now), []);
    });

    it('decodes HH:MM and IANA zones at their boundaries', () => {
      const base = { name: 'Win back', account_id: '5d0c4c8e-7d0a-4c39-9d43-1d2f7f7b9a11', organization_code: '5d0c4c8e-7d0a-4c39-9d43-1d2f7f7b9a12', country: 'CO', channel: 'PHONE_CALL' };
      const decode = (schedule: unknown) => CreateCampaignRequest.decode({ ...base, schedule })._tag;
      assert.equal(decode({ daily_start_time: '00:00', daily_end_time: '23:59', time_zone: 'America/Bogota' }), 'Right');
      assert.equal(decode({ daily_start_time: '24:00', daily_end_time: '23:59', time_zone: 'UTC' }), 'Left');
      assert.equal(decode({ daily_start_time: '9:00', daily_end_time: '23:59', time_zone: 'UTC' }), 'Left');
      assert.equal(decode({ daily_start_time: '09:60', daily_end_time: '23:59', time_zone: 'UTC' }), 'Left');
      assert.equal(decode({ daily_start_time: '09:00', daily_end_time: '17:00', time_zone: 'Mars/Olympus' }), 'Left');
      assert.equal(decode({ daily_start_time: '09:00', daily_end_time: '17:00' }), 'Left');
    });
  });

  describe('rule engine', () => {
    const check = (r: RuleDefinition, p: DeclinedPayment = payment) => evaluateRule(r, p).passed;

    it('EQUAL / NOT_EQUAL on text and on money', () => {
      assert.equal(check(rule({ rule_type: 'PROVIDER', conditional: 'EQUAL', values: ['SANDBOX'] })), true);
      assert.equal(check(rule({ rule_type: 'PROVIDER', conditional: 'EQUAL', values: ['sandbox'] })), false);
      assert.equal(check(rule({ rule_type: 'PROVIDER', conditional: 'NOT_EQUAL', values: ['OTHER'] })), true);
      assert.equal(check(rule({ rule_type: 'AMOUNT', conditional: 'EQUAL', values: ['150.50'] })), true);
      assert.equal(check(rule({ rule_type: 'AMOUNT', conditional: 'NOT_EQUAL', values: ['150.5'] })), false);
      assert.equal(check(rule({ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['USD'] })), true);
      assert.equal(check(rule({ rule_type: 'PAYMENT_STATUS', conditional: 'EQUAL', values: ['DECLINED'] })), true);
      assert.equal(check(rule({ rule_type: 'PAYMENT_METHOD', conditional: 'EQUAL', values: ['CARD'] })), true);
      assert.equal(check(rule({ rule_type: 'ISO_RESPONSE_CODE', conditional: 'EQUAL', values: ['05'] })), false);
      assert.equal(check(rule({ rule_type: 'CATEGORY', conditional: 'EQUAL', values: ['CARD'] })), true);
    });

    it('ONE_OF = IN, and NOT_ONE_OF', () => {
      for (const conditional of ['ONE_OF', 'IN'] as const) {
        assert.equal(check(rule({ rule_type: 'RESPONSE_CODE', conditional, values: ['DO_NOT_HONOR', 'INSUFFICIENT_FUNDS'] })), true);
        assert.equal(check(rule({ rule_type: 'RESPONSE_CODE', conditional, values: ['DO_NOT_HONOR'] })), false);
        assert.equal(check(rule({ rule_type: 'AMOUNT', conditional, values: ['1', '150.5'] })), true);
      }
      assert.equal(check(rule({ rule_type: 'RESPONSE_CODE', conditional: 'NOT_ONE_OF', values: ['DO_NOT_HONOR'] })), true);
      assert.equal(check(rule({ rule_type: 'RESPONSE_CODE', conditional: 'NOT_ONE_OF', values: ['INSUFFICIENT_FUNDS'] })), false);
    });

    it('numeric comparisons at their boundaries, in 0.0001 units', () => {
      const amount = (conditional: RuleDefinition['conditional'], values: string[], value = 150.5) =>
        check(rule({ rule_type: 'AMOUNT', conditional, values }), { ...payment, amount: { value, currency: 'USD' } });
      assert.equal(amount('GREATER_THAN', ['150.4999']), true);
      assert.equal(amount('GREATER_THAN', ['150.5']), false);
      assert.equal(amount('GREATER_THAN_OR_EQUAL', ['150.5']), true);
      assert.equal(amount('GREATER_THAN_OR_EQUAL', ['150.5001']), false);
      assert.equal(amount('LESS_THAN', ['150.5001']), true);
      assert.equal(amount('LESS_THAN', ['150.5']), false);
      assert.equal(amount('LESS_THAN_OR_EQUAL', ['150.5']), true);
      assert.equal(amount('LESS_THAN_OR_EQUAL', ['150.4999']), false);
      assert.equal(amount('BETWEEN', ['150.5', '200']), true);
      assert.equal(amount('BETWEEN', ['100', '150.5']), true);
      assert.equal(amount('BETWEEN', ['150.5001', '200']), false);
      assert.equal(amount('GREATER_THAN', ['0.2'], 0.3), true);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'score', conditional: 'GREATER_THAN', values: ['12.4999'] })), true);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'tier', conditional: 'GREATER_THAN', values: ['1'] })), false);
    });

    it('AMOUNT_AND_CURRENCY needs the currency and the amount condition', () => {
      assert.equal(check(rule({ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'BETWEEN', values: ['100', '200', 'USD'] })), true);
      assert.equal(check(rule({ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'BETWEEN', values: ['100', '200', 'EUR'] })), false);
      assert.equal(check(rule({ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'GREATER_THAN', values: ['150.5', 'USD'] })), false);
      assert.equal(check(rule({ rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'ONE_OF', values: ['10', '150.5', 'USD'] })), true);
    });

    it('CONTAINS is case-insensitive; STARTS_WITH is a prefix on CARD_BIN and METADATA', () => {
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'tier', conditional: 'CONTAINS', values: ['silver', 'GOLD'] })), true);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'tier', conditional: 'CONTAINS', values: ['bronze'] })), false);
      assert.equal(check(rule({ rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['5', '4111'] })), true);
      assert.equal(check(rule({ rule_type: 'CARD_BIN', conditional: 'STARTS_WITH', values: ['42'] })), false);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'tier', conditional: 'STARTS_WITH', values: ['Gold'] })), true);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'tier', conditional: 'STARTS_WITH', values: ['Plus'] })), false);
    });

    it('an absent field fails positive conditionals and passes negative ones', () => {
      const bare: DeclinedPayment = { amount: { value: 1, currency: 'USD' } };
      assert.equal(check(rule({ rule_type: 'PROVIDER', conditional: 'EQUAL', values: ['X'] }), bare), false);
      assert.equal(check(rule({ rule_type: 'PROVIDER', conditional: 'NOT_ONE_OF', values: ['X'] }), bare), true);
      assert.equal(check(rule({ rule_type: 'METADATA', metadata_key: 'missing', conditional: 'NOT_EQUAL', values: ['X'] })), true);
    });

    it('rate-limiting rules pass the engine only with a user_id metadata entry', () => {
      assert.equal(check(rule({ rule_type: 'UNIQUE_BY_USER' })), true);
      assert.equal(check(rule({ rule_type: 'USER_COMMS_PER_DAY', values: ['2'] }), { ...payment, metadata: [] }), false);
    });

    it('all ACTIVE rules must pass; INACTIVE rules are ignored', () => {
      const active = { ...rule({ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['USD'] }), status: 'ACTIVE' };
      const failing = { ...rule({ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['EUR'] }), status: 'ACTIVE' };
      assert.equal(evaluateRules([active], payment).matched, true);
      assert.equal(evaluateRules([active, failing], payment).matched, false);
      const result = evaluateRules([active, { ...failing, status: 'INACTIVE' }], payment);
      assert.equal(result.matched, true);
      assert.equal(result.results.length, 1);
      assert.equal(evaluateRules([], payment).matched, false, 'no rules, no audience');
      assert.equal(evaluateRules([{ ...active, status: 'INACTIVE' }], payment).matched, false);
    });
  });

  describe('state machine', () => {
    it('allows ACTIVE<->PAUSED and ACTIVE|PAUSED -> COMPLETED|CANCELLED; terminal states refuse everything', () => {
      const allowed = new Set(['ACTIVE>PAUSED', 'PAUSED>ACTIVE', 'ACTIVE>COMPLETED', 'PAUSED>COMPLETED', 'ACTIVE>CANCELLED', 'PAUSED>CANCELLED', 'ACTIVE>ACTIVE', 'PAUSED>PAUSED']);
      for (const from of CAMPAIGN_STATUSES) {
        for (const to of CAMPAIGN_STATUSES) {
          const result = checkCampaignTransition(from, to);
          assert.equal(result.ok, allowed.has(`${from}>${to}`), `${from} -> ${to}`);
          if (!result.ok && (from === 'COMPLETED' || from === 'CANCELLED')) assert.match(result.message, /terminal/);
        }
      }
      assert.deepEqual(checkCampaignTransition('ACTIVE', 'ACTIVE'), { ok: true, changed: false });
    });
  });

  describe('schedule window', () => {
    const schedule: Schedule = { daily_start_time: '09:00', daily_end_time: '18:00', time_zone: 'America/Bogota' }; // UTC-5
    it('is evaluated in the campaign time zone, end exclusive', () => {
      assert.equal(isInWindow(schedule, new Date('2026-03-02T14:00:00Z')), true); // 09:00 local
      assert.equal(isInWindow(schedule, new Date('2026-03-02T13:59:00Z')), false);
      assert.equal(isInWindow(schedule, new Date('2026-03-02T22:59:00Z')), true); // 17:59
      assert.equal(isInWindow(schedule, new Date('2026-03-02T23:00:00Z')), false);
    });

    it('waits until the next opening, including overnight windows and DST changes', () => {
      assert.equal(nextSendTime(schedule, new Date('2026-03-02T12:30:10Z')).toISOString(), '2026-03-02T14:00:00.000Z');
      assert.equal(nextSendTime(schedule, new Date('2026-03-02T23:30:00Z')).toISOString(), '2026-03-03T14:00:00.000Z');
      const inside = new Date('2026-03-02T15:00:00Z');
      assert.equal(nextSendTime(schedule, inside), inside);
      assert.equal(nextSendTime(null, inside), inside);
      const night: Schedule = { daily_start_time: '22:00', daily_end_time: '06:00', time_zone: 'UTC' };
      assert.equal(isInWindow(night, new Date('2026-03-02T23:00:00Z')), true);
      assert.equal(isInWindow(night, new Date('2026-03-02T05:59:00Z')), true);
      assert.equal(nextSendTime(night, new Date('2026-03-02T06:00:00Z')).toISOString(), '2026-03-02T22:00:00.000Z');
      // New York springs forward on 2026-03-08: 09:00 EDT is 13:00 UTC, not 14:00.
      const ny: Schedule = { daily_start_time: '09:00', daily_end_time: '10:00', time_zone: 'America/New_York' };
      assert.equal(nextSendTime(ny, new Date('2026-03-07T16:00:00Z')).toISOString(), '2026-03-08T13:00:00.000Z');
    });

    it('keys the daily limit by the local day and checks the active period', () => {
      assert.equal(dayKey(schedule, new Date('2026-03-03T03:00:00Z')), '2026-03-02');
      assert.equal(dayKey(null, new Date('2026-03-03T03:00:00Z')), '2026-03-03');
      const duration = { start_at: '2026-03-01T00:00:00Z', end_at: '2026-03-02T00:00:00Z' };
      assert.equal(isInPeriod(duration, new Date('2026-03-01T00:00:00Z')), true);
      assert.equal(isInPeriod(duration, new Date('2026-03-02T00:00:00Z')), false);
      assert.equal(isInPeriod(duration, new Date('2026-02-28T23:59:59Z')), false);
      assert.equal(isInPeriod(null, new Date()), true);
    });
  });

  it('lists the contract vocabulary', () => {
    assert.equal(RULE_TYPES.length, 13);
    assert.equal(CONDITIONALS.length, 12);
  });
});
