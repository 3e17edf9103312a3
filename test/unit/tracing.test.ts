import assert from 'node:assert/strict';
import { shapeOnly, tracingConfigured } from '../../activities/runtime/tracing';

describe('tracing settings (unit)', () => {
  it('is on only with an OTLP endpoint, and OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turn it off', () => {
    assert.equal(tracingConfigured({}), false);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  });

  it('records the shape of a MongoDB command, never its values', () => {
    const command = {
      update: 'vault_security_codes',
      updates: [{ q: { _id: 'pay_1', card: { number: '4111111111111111' } }, u: { $set: { code: '737' } }, upsert: true }],
      filter: { status: { $in: ['A', 'B', 'C'] }, created_at: new Date(), amount: 12.5 },
    };
    const shape = shapeOnly(command);
    assert.deepEqual(shape, {
      update: '?',
      updates: [{ q: { _id: '?', card: { number: '?' } }, u: { $set: { code: '?' } }, upsert: '?' }],
      filter: { status: { $in: ['?'] }, created_at: '?', amount: '?' },
    });
    assert.ok(!JSON.stringify(shape).includes('4111'));
  });
});
