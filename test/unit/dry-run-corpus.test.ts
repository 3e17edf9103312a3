import assert from 'node:assert/strict';
import { BUILT_IN_PROFILES, profileProblems } from '../../domain/dry-run/profiles';
import { CorpusExchange, formatFigures, loadCorpus, loadHoldout, scoreCorpus } from '../support/dry-run-corpus';

function assertThresholds(corpus: CorpusExchange[]): void {
  const figures = scoreCorpus(corpus);
  const table = formatFigures(figures, true);
  for (const f of figures) {
    assert.ok(f.recall >= 0.95, `${f.mode} ${f.provider}: recall ${f.recall}\n${table}`);
    assert.ok(f.falseFindingRate <= 0.02, `${f.mode} ${f.provider}: false findings ${f.falseFindingRate}\n${table}`);
  }
}

describe('unit: dry-run corpus scored per provider (profiles, generic mode, generic mode with an unknown API host)', () => {
  const corpus = loadCorpus();
  const holdout = loadHoldout();

  it('built-in profiles are valid as loaded from DRY_RUN_PROFILES_FILE (JSON, one per provider)', () => {
    const ids = BUILT_IN_PROFILES.map((p) => p.provider_id);
    assert.equal(new Set(ids).size, ids.length);
    for (const profile of BUILT_IN_PROFILES) assert.deepEqual(profileProblems(JSON.parse(JSON.stringify(profile))), [], profile.id);
    assert.deepEqual(profileProblems({ ...BUILT_IN_PROFILES[1], fields: [{ concept: 'amout', leg: 'REQUEST', path: 'amount' }] }).length, 1);
  });

  it('holds at least 5 clean and 5 single-defect exchanges per provider', () => {
    const providers = [...new Set(corpus.map((c) => c.provider_id))];
    for (const id of ['STRIPE', 'ADYEN', 'CHECKOUT', 'DLOCAL', 'MERCADO_PAGO', 'PAYU', 'AUTHORIZE_NET', 'SANDBOX']) assert.ok(providers.includes(id), id);
    for (const id of providers) {
      const of = corpus.filter((c) => c.provider_id === id);
      assert.ok(of.filter((c) => !c.expected.length).length >= 5, `${id} clean`);
      assert.ok(of.filter((c) => c.expected.length === 1).length >= 5, `${id} defects`);
    }
  });

  it('recall >= 95% and false findings <= 2%, per provider, with profiles, in generic mode and blind', function () {
    this.timeout(60_000);
    assertThresholds(corpus);
  });

  it('the held-out corpus (shaped unlike the main one) meets the same thresholds', function () {
    this.timeout(60_000);
    const providers = new Set(holdout.map((c) => c.provider_id));
    for (const id of ['STRIPE', 'ADYEN', 'CHECKOUT', 'DLOCAL', 'MERCADO_PAGO', 'WORLDPAY', 'SANDBOX', 'GENERIC']) assert.ok(providers.has(id), id);
    for (const id of providers) {
      const of = holdout.filter((c) => c.provider_id === id);
      assert.ok(of.filter((c) => !c.expected.length).length >= 5, `${id} clean`);
      assert.ok(of.filter((c) => c.expected.length).length >= 10, `${id} defects`);
    }
    assertThresholds(holdout);
  });
});
