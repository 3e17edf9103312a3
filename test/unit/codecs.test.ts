import assert from 'node:assert/strict';
import * as t from 'io-ts';
import { boundedString, CountryCode, DecimalAmount, enumOf, PositiveDecimalAmount, struct, Uuid } from '../../domain/codecs/common';
import { SchemaRegistry } from '../../domain/codecs/json-schema';
import { ApiError, decodeOrThrow } from '../../domain/errors';

const Sample = struct(
  'Sample',
  { id: Uuid, name: boundedString(3, 5), amount: struct('Amount', { value: PositiveDecimalAmount, currency: t.string }, {}) },
  { kind: enumOf('Kind', ['A', 'B']), items: t.array(struct('Item', { country: CountryCode }, {})) },
);

function fieldErrors(input: unknown) {
  try {
    decodeOrThrow(Sample, input);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 400);
    return error.fieldErrors;
  }
  assert.fail('expected a validation error');
}

describe('codecs (unit)', () => {
  it('reports each failing field by its path, with a readable message', () => {
    const errors = fieldErrors({ id: 'nope', name: 'ab', amount: { value: 0, currency: 'USD' }, kind: 'C', items: [{ country: 'US' }, { country: 'usa' }] });
    const byField = Object.fromEntries(errors.map((e) => [e.field, e]));
    assert.deepEqual(Object.keys(byField).sort(), ['amount.value', 'id', 'items.1.country', 'kind', 'name']);
    assert.match(byField.name.message, /3 to 5 characters/);
    assert.match(byField['amount.value'].message, /greater than 0/);
    assert.match(byField.kind.message, /one of A, B/);
    assert.equal(byField.id.code, 'INVALID');
  });

  it('marks missing required fields as REQUIRED', () => {
    const errors = fieldErrors({ name: 'abc' });
    assert.deepEqual(errors.filter((e) => e.code === 'REQUIRED').map((e) => e.field).sort(), ['amount', 'id']);
  });

  it('drops unknown properties on decode', () => {
    const decoded = decodeOrThrow(Sample, { id: '6f2b7c1e-0000-4000-8000-000000000000', name: 'abcd', amount: { value: 1.5, currency: 'USD', extra: 1 }, sneaky: true });
    assert.equal('sneaky' in decoded, false);
    assert.equal('extra' in decoded.amount, false);
  });

  it('rejects more than 4 decimal places', () => {
    assert.equal(DecimalAmount.is(1.23456), false);
    assert.equal(DecimalAmount.is(1.2345), true);
  });

  it('derives a JSON schema carrying the same constraints', () => {
    const registry = new SchemaRegistry();
    const schema = registry.schemaOf(Sample) as { properties: Record<string, any>; required: string[] };
    assert.deepEqual(schema.required.sort(), ['amount', 'id', 'name']);
    assert.equal(schema.properties.name.minLength, 3);
    assert.equal(schema.properties.name.maxLength, 5);
    assert.deepEqual(schema.properties.kind.enum, ['A', 'B']);
    assert.equal(schema.properties.amount.properties.value.exclusiveMinimum, 0);
    assert.equal(schema.properties.items.items.properties.country.pattern, '^[A-Z]{2}$');
  });
});
