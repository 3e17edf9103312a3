import assert from 'node:assert/strict';
import {
  destinationErrors,
  isAbaRoutingNumber,
  isIban,
  RAILS_BY_REGION,
  sandboxSettlement,
  settlementDelayMs,
  transferErrors,
} from '../../domain/banking';

describe('banking rules (unit)', () => {
  const usSource = { id: 's1', region: 'US' as const, currency: 'USD', provider: 'SANDBOX_BANK' };

  it('checks ABA routing numbers and IBANs by their check digits', () => {
    assert.ok(isAbaRoutingNumber('021000021'));
    assert.ok(!isAbaRoutingNumber('021000022'));
    assert.ok(!isAbaRoutingNumber('02100002'));
    assert.ok(isIban('GB82WEST12345698765432'));
    assert.ok(isIban('gb82 west 1234 5698 7654 32'));
    assert.ok(!isIban('GB82WEST12345698765433'));
    assert.ok(isIban('DE89370400440532013000'));
  });

  it('requires the destination fields of each region', () => {
    assert.deepEqual(destinationErrors('US', { account_number: '1234', routing_number: '021000021' }), []);
    assert.deepEqual(destinationErrors('US', {}).map((e) => e.field), ['destination_account.account_number', 'destination_account.routing_number']);
    assert.deepEqual(destinationErrors('UK', { iban: 'GB82WEST12345698765432' }), []);
    assert.deepEqual(destinationErrors('UK', { account_number: '12345678', sort_code: '12-34-56' }), []);
    assert.equal(destinationErrors('UK', { account_number: '12345678' })[0].field, 'destination_account.sort_code');
    assert.equal(destinationErrors('UK', { iban: 'DE89370400440532013000' })[0].field, 'destination_account.iban');
    assert.deepEqual(destinationErrors('AU', { account_number: '12345', bsb: '062000' }), []);
    assert.deepEqual(destinationErrors('AU', { account_number: '123456789', bsb: '062-000' }), []);
    assert.equal(destinationErrors('AU', { account_number: '1234', bsb: '062000' })[0].field, 'destination_account.account_number');
  });

  it('limits rails to the source region and the currency to the source currency and its decimals', () => {
    for (const [region, rails] of Object.entries(RAILS_BY_REGION)) {
      for (const rail of rails) {
        const source = { ...usSource, region: region as 'US' | 'UK' | 'AU' };
        assert.ok(!transferErrors({ payment_rail: rail, amount: 1, currency: 'USD', source }).some((e) => e.field === 'payment_rail'), `${rail} in ${region}`);
      }
    }
    const base = { payment_rail: 'RTP' as const, amount: 1, currency: 'USD', source: usSource };
    assert.deepEqual(transferErrors(base), []);
    assert.equal(transferErrors({ ...base, payment_rail: 'BACS' })[0].field, 'payment_rail');
    assert.equal(transferErrors({ ...base, currency: 'EUR' })[0].field, 'amount.currency');
    assert.equal(transferErrors({ ...base, amount: 1.001 })[0].field, 'amount.value');
    assert.deepEqual(transferErrors({ ...base, amount: 1.01 }), []);
  });

  it('book transfers need another account of the same provider and currency', () => {
    const base = { payment_rail: 'WIRE' as const, amount: 5, currency: 'USD', source: usSource };
    assert.deepEqual(transferErrors({ ...base, destination: { ...usSource, id: 's2' } }), []);
    assert.equal(transferErrors({ ...base, destination: usSource }).length, 1);
    assert.match(transferErrors({ ...base, destination: { ...usSource, id: 's2', provider: 'OTHER' } })[0].message, /same provider/);
    assert.match(transferErrors({ ...base, destination: { ...usSource, id: 's2', currency: 'GBP' } })[0].message, /same currency/);
  });

  it('settles by the sandbox rules and scales realistic rail delays', () => {
    assert.deepEqual(sandboxSettlement(10, '1234'), { status: 'COMPLETED', failure: null });
    assert.equal(sandboxSettlement(10, '9999').failure?.code, 'ACCOUNT_CLOSED');
    assert.equal(sandboxSettlement(1.13, null).failure?.code, 'INSUFFICIENT_FUNDS');
    assert.equal(sandboxSettlement(1.1301, null).status, 'COMPLETED');
    assert.equal(sandboxSettlement(0.13, null).status, 'FAILED');
    assert.equal(settlementDelayMs('BACS', false, 1), 3 * 86_400_000);
    assert.equal(settlementDelayMs('RTP', false, 1), 5_000);
    assert.equal(settlementDelayMs('BACS', true, 1), 2_000);
    assert.equal(settlementDelayMs('RTP', false, 0), 1);
  });
});
