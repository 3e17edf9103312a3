import assert from 'node:assert/strict';
import { renderError } from '../../api/errors';
import { ApiError } from '../../domain/errors';

describe('error shapes per area (unit)', () => {
  const validation = new ApiError('validation', ['amount.value must be greater than 0'], {
    fieldErrors: [{ field: 'amount.value', code: 'OUT_OF_RANGE', message: 'amount.value must be greater than 0' }],
  });

  it('dry-run: {code, messages, httpCode}', () => {
    assert.deepEqual(renderError('dry-run', validation, 'r1'), { code: 'TRAFFIC_LOG_VALIDATION_FAILED', messages: ['amount.value must be greater than 0'], httpCode: 400 });
    assert.equal(renderError('dry-run', new ApiError('invalid_credentials', 'bad'), 'r').code, 'AuthenticationFail');
    assert.equal(renderError('dry-run', new ApiError('unauthenticated', 'none'), 'r').code, 'NOT_AUTHENTICATED');
  });

  it('banking: {code, messages, http_code}', () => {
    assert.deepEqual(renderError('banking', validation, 'r1'), { code: 'VALIDATION_ERROR', messages: ['amount.value must be greater than 0'], http_code: 400 });
    assert.equal(renderError('banking', new ApiError('not_found', 'x'), 'r').code, 'ACCOUNT_NOT_FOUND');
  });

  it('enrollment and reports: {code, messages}', () => {
    assert.deepEqual(renderError('enrollment', new ApiError('invalid_credentials', 'bad'), 'r'), { code: 'INVALID_CREDENTIALS', messages: ['bad'] });
    assert.deepEqual(renderError('reports', new ApiError('forbidden', 'no'), 'r'), { code: 'AUTHORIZATION_REQUIRED', messages: ['no'] });
  });

  it('whitelabel and sellers: {code, message}', () => {
    assert.deepEqual(renderError('whitelabel', new ApiError('validation', 'user_id is missing'), 'r'), { code: 'INVALID_PARAMETERS', message: 'user_id is missing' });
    assert.deepEqual(renderError('sellers', new ApiError('not_found', 'seller not found', { code: 'SELLER_NOT_FOUND' }), 'r'), { code: 'SELLER_NOT_FOUND', message: 'seller not found' });
  });

  it('campaigns: integer code', () => {
    const body = renderError('campaigns', new ApiError('unprocessable', 'invalid rule type'), 'r');
    assert.equal(body.code, 422);
    assert.equal(body.message, 'invalid rule type');
  });

  it('refunds: problem details with field errors and the trace id', () => {
    const body = renderError('refunds', validation, 'trace-1');
    assert.equal(body.status, 400);
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.equal(body.trace_id, 'trace-1');
    assert.equal(body.title, 'Bad Request');
    assert.match(String(body.type), /^urn:switchyard:problem:validation-error$/);
    assert.deepEqual(body.errors, validation.fieldErrors);
  });
});
