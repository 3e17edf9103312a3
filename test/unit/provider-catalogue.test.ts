import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isIsoCountry, isIsoCurrency } from '../../domain/iso-codes';
import { PaymentMethodTypeCodec } from '../../domain/payments/codecs';
import { CARD_METHOD_TYPES, METHOD_CATEGORIES, PAYMENT_FLOWS, PAYMENT_METHOD_TYPES, PAYMENT_METHODS } from '../../domain/payments/methods';
import { connectionRefusal, servableConnections } from '../../domain/payments/routing';
import { creditRefusal } from '../../domain/money-movement/common';
import { profileProblems, SANDBOX_PROFILE } from '../../domain/dry-run/profiles';
import {
  CAPABILITIES, CREDIT_PROVIDER_CODES, hasCapability, PROVIDER_CATALOGUE, PROVIDER_CODES, providerEntry, providerTakes, REGIONS, supportsCredit,
} from '../../domain/providers/catalogue';
import { CATALOGUE_END, CATALOGUE_START, renderCatalogueSection, withCatalogueSection } from '../../domain/providers/catalogue-doc';
import { SPLIT_PROVIDER_CODES } from '../../domain/recipients/codecs';
import { ENROLLABLE_METHOD_TYPES, enrollableMethods } from '../../domain/customers/codecs';
import { PAYMENT_METHOD_TYPES as DRY_RUN_METHOD_TYPES } from '../../domain/dry-run/codecs';

const duplicates = (values: readonly string[]) => values.filter((v, i) => values.indexOf(v) !== i);

describe('unit: provider catalogue', () => {
  it('holds the spec\'s 50 providers with unique upper-case codes and names', () => {
    assert.equal(PROVIDER_CATALOGUE.length, 50);
    for (const code of PROVIDER_CODES) assert.match(code, /^[A-Z][A-Z0-9_]{1,39}$/, code);
    assert.deepEqual(duplicates(PROVIDER_CODES), []);
    assert.deepEqual(duplicates(PROVIDER_CATALOGUE.map((p) => p.name)), []);
    assert.deepEqual([...PROVIDER_CODES], [...PROVIDER_CODES].sort(), 'sorted by code');
    assert.ok(providerEntry('SANDBOX') && providerEntry('ADYEN') && providerEntry('MERCADO_PAGO'));
    assert.equal(providerEntry('GENERIC'), undefined);
  });

  it('uses ISO 3166-1 countries and ISO 4217 currencies only, without repeats', () => {
    for (const p of PROVIDER_CATALOGUE) {
      assert.ok(p.countries.length > 0 && p.currencies.length > 0, p.code);
      assert.deepEqual(p.countries.filter((c) => !isIsoCountry(c)), [], `${p.code} countries`);
      assert.deepEqual(p.currencies.filter((c) => !isIsoCurrency(c)), [], `${p.code} currencies`);
      assert.deepEqual(duplicates(p.countries), [], `${p.code} repeats a country`);
      assert.deepEqual(duplicates(p.currencies), [], `${p.code} repeats a currency`);
      for (const [kind, countries] of Object.entries(p.credits)) {
        assert.deepEqual(countries!.filter((c) => !p.countries.includes(c)), [], `${p.code} credits ${kind} outside its countries`);
      }
    }
  });

  it('names regions, methods and capabilities from their vocabularies', () => {
    for (const p of PROVIDER_CATALOGUE) {
      assert.ok(p.regions.length > 0 && p.regions.every((r) => REGIONS.includes(r)), p.code);
      assert.ok(p.paymentMethodTypes.length > 0 && p.paymentMethodTypes.every((m) => PAYMENT_METHOD_TYPES.includes(m)), p.code);
      assert.deepEqual(duplicates(p.paymentMethodTypes), [], p.code);
      assert.ok(p.capabilities.every((c) => CAPABILITIES.includes(c)), p.code);
      assert.deepEqual(duplicates(p.capabilities), [], p.code);
      assert.ok(['minor', 'major'].includes(p.amountUnit), p.code);
      assert.ok(p.countryFormat === null || ['alpha-2', 'alpha-3'].includes(p.countryFormat), p.code);
      assert.ok(p.docsUrl.startsWith('https://') || (p.code === 'SANDBOX' && p.docsUrl === '/docs'), p.code);
    }
  });

  it('keeps capabilities consistent: partial needs the whole, credits need their capability', () => {
    for (const p of PROVIDER_CATALOGUE) {
      const has = (c: (typeof CAPABILITIES)[number]) => p.capabilities.includes(c);
      assert.ok(has('authorize'), `${p.code} takes payments`);
      if (has('partial_capture')) assert.ok(has('capture'), `${p.code} partial_capture without capture`);
      if (has('partial_refund')) assert.ok(has('refund'), `${p.code} partial_refund without refund`);
      assert.equal(has('unreferenced_refund'), (p.credits.CARD?.length ?? 0) > 0, `${p.code}: card credits iff unreferenced_refund`);
      assert.equal(has('payout'), (p.credits.BANK_TRANSFER?.length ?? 0) + (p.credits.WALLET?.length ?? 0) > 0, `${p.code}: bank or wallet credits iff payout`);
    }
  });

  it('accepts dry-run mapping profiles only for catalogue providers', () => {
    assert.deepEqual(profileProblems(SANDBOX_PROFILE), []);
    assert.deepEqual(profileProblems({ ...SANDBOX_PROFILE, provider_id: 'ADYEN' }), []);
    assert.deepEqual(profileProblems({ ...SANDBOX_PROFILE, provider_id: 'ACME' }), ['provider_id ACME is not in the provider catalogue']);
  });

  it('28 providers can push credits, as the spec counts the codes of a refund\'s provider_data.id', () => {
    assert.equal(CREDIT_PROVIDER_CODES.length, 28);
    assert.ok(CREDIT_PROVIDER_CODES.includes('SANDBOX'));
    assert.ok(SPLIT_PROVIDER_CODES.includes('SANDBOX'));
  });

  it('answers capability questions', () => {
    assert.equal(supportsCredit('SANDBOX', 'CARD', 'JP'), true);
    assert.equal(supportsCredit('SANDBOX', 'WALLET', 'US'), false);
    assert.equal(supportsCredit('CHECKOUT', 'CARD', 'US'), true);
    assert.equal(supportsCredit('CHECKOUT', 'CARD', 'GB'), false);
    assert.equal(supportsCredit('MERCADO_PAGO', 'CARD', 'BR'), false);
    assert.equal(supportsCredit('NOT_A_PROVIDER', 'CARD', 'US'), false);
    assert.match(creditRefusal('MERCADO_PAGO', 'CARD', 'BR')!, /no unreferenced_refund capability/);
    assert.match(creditRefusal('STRIPE', 'WALLET', 'US')!, /does not push WALLET credits in US/);
    assert.equal(creditRefusal('ADYEN', 'CARD', 'NL'), null);
    assert.equal(hasCapability('KLARNA', 'split'), false);
    assert.equal(providerTakes('WOMPI', 'NEQUI', 'CO'), true);
    assert.equal(providerTakes('WOMPI', 'NEQUI', 'PE'), false);
    assert.equal(providerTakes('SANDBOX', 'PIX', 'BR'), false);
  });

  it('routes only to connections whose provider takes the method there and has a connector for its flow', () => {
    const flows = (id: string) => (id === 'SANDBOX' ? (['card'] as const) : ([] as const));
    const route = [{ providerId: 'ADYEN' }, { providerId: 'SANDBOX' }];
    assert.deepEqual(servableConnections(route, { country: 'CO', paymentMethodType: 'CARD' }, flows).servable, [{ providerId: 'SANDBOX' }]);
    const pix = servableConnections(route, { country: 'BR', paymentMethodType: 'PIX' }, flows);
    assert.deepEqual(pix.servable, []);
    assert.deepEqual(pix.refusals, ['Switchyard has no ADYEN connector for bank_transfer payments yet', 'SANDBOX does not take PIX payments in BR']);
    assert.equal(connectionRefusal('ADYEN', { country: 'CO', paymentMethodType: 'PIX' }, flows), 'ADYEN does not take PIX payments in CO');
  });
});

describe('unit: payment method vocabulary', () => {
  const SPEC_VALUES = ['CARD', 'CREDIT_CARD', 'CREDIT_CARD_REFERENCE_TRANSACTION', 'DEBIT_CARD', 'TEST_CREDIT_CARD', 'ACH', 'BANK_TRANSFER', 'CRYPTO', 'CASH'];

  it('is the spec\'s nine values plus 24 upper-case codes, each once', () => {
    assert.deepEqual(PAYMENT_METHODS.filter((m) => m.listedInSpec).map((m) => m.code), SPEC_VALUES);
    assert.equal(PAYMENT_METHODS.filter((m) => !m.listedInSpec).length, 24);
    assert.deepEqual(duplicates(PAYMENT_METHOD_TYPES), []);
    for (const code of PAYMENT_METHOD_TYPES) assert.match(code, /^[A-Z][A-Z0-9_]+$/, code);
    assert.deepEqual(DRY_RUN_METHOD_TYPES, ['', ...PAYMENT_METHOD_TYPES]);
  });

  it('gives every value a documented flow and category, and a provider that takes it', () => {
    for (const m of PAYMENT_METHODS) {
      assert.ok(PAYMENT_FLOWS.includes(m.flow), m.code);
      assert.ok(METHOD_CATEGORIES.includes(m.category), m.code);
      assert.ok(m.name.length > 0, m.code);
      assert.ok(PROVIDER_CATALOGUE.some((p) => (p.paymentMethodTypes as readonly string[]).includes(m.code)), `no provider takes ${m.code}`);
    }
    assert.deepEqual([...CARD_METHOD_TYPES], ['CARD', 'CREDIT_CARD', 'CREDIT_CARD_REFERENCE_TRANSACTION', 'DEBIT_CARD', 'TEST_CREDIT_CARD']);
    for (const flow of PAYMENT_FLOWS) assert.ok(PAYMENT_METHODS.some((m) => m.flow === flow), `${flow} is used`);
  });

  it('decodes every value and nothing else', () => {
    for (const code of PAYMENT_METHOD_TYPES) assert.equal(PaymentMethodTypeCodec.decode(code)._tag, 'Right', code);
    for (const bad of ['', 'PIGEON', 'apple_pay', 'CARD ']) assert.equal(PaymentMethodTypeCodec.decode(bad)._tag, 'Left', bad);
  });

  it('describes the enrollable methods from the vocabulary', () => {
    assert.deepEqual(ENROLLABLE_METHOD_TYPES, ['CARD']);
    assert.deepEqual(enrollableMethods('s-1', 'https://x.example'), [
      { name: 'Card', description: 'Credit and debit cards', type: 'CARD', category: 'CARD', icon: 'https://x.example/static/icons/card.svg', enrollment: { session: 's-1', sdk_required_action: false } },
    ]);
  });
});

describe('unit: README provider catalogue', () => {
  it('is the section generated from the data (run npm run docs:catalogue after editing the catalogue)', () => {
    // Compiled tests run from dist/test/unit; the README is at the repository root.
    const readme = readFileSync(path.resolve(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    assert.ok(readme.includes(CATALOGUE_START) && readme.includes(CATALOGUE_END), 'README has the catalogue markers');
    assert.equal(withCatalogueSection(readme), readme, 'README provider catalogue is stale: run npm run docs:catalogue');
    const section = renderCatalogueSection();
    for (const code of PROVIDER_CODES) assert.ok(section.includes(`| \`${code}\` |`), code);
    for (const code of PAYMENT_METHOD_TYPES) assert.ok(section.includes(`| \`${code}\` |`), code);
  });
});
