/**
 * Connector for the built-in sandbox acquirer (activities/sandbox-gateway).
 */
import { categoryOfIsoCode, ISO8583_MESSAGES } from '../../domain/payments/provider-codes';
import { toCurrencyMinor } from '../../domain/money';
import { overHttp, ProviderResult } from './connector';

function minor(amount: number, currency: string): number {
  const value = toCurrencyMinor(amount, currency);
  if (value === null) throw new Error(`${amount} has more decimals than ${currency} allows`);
  return Number(value);
}

const RESPONSE_CODES: Record<string, string> = {
  '00': 'APPROVED',
  '05': 'DO_NOT_HONOR',
  '43': 'STOLEN_CARD',
  '51': 'INSUFFICIENT_FUNDS',
  '1A': 'THREE_D_SECURE_REQUIRED',
  '91': 'PROVIDER_UNAVAILABLE',
  '96': 'PROVIDER_ERROR',
  '12': 'INVALID_TRANSACTION',
};

export const sandboxConnector = overHttp({
  providerId: 'SANDBOX',
  flows: ['card'],

  buildAuthorization(target, request) {
    return {
      method: 'POST',
      path: '/v1/authorizations',
      headers: { 'x-merchant-id': target.merchantId, 'idempotency-key': request.idempotencyKey },
      body: {
        amount: minor(request.amount, request.currency),
        currency: request.currency,
        capture: request.capture,
        reference: request.reference,
        installments: request.installments ?? 1,
        soft_descriptor: request.softDescriptor,
        card: {
          number: request.card.number,
          holder_name: request.card.holderName,
          exp_month: request.card.expirationMonth,
          exp_year: request.card.expirationYear,
          ...(request.card.securityCode ? { cvv: request.card.securityCode } : {}),
        },
      },
    };
  },

  buildFollowUp(target, kind, request) {
    const path = { capture: 'captures', void: 'voids', refund: 'refunds' }[kind];
    return {
      method: 'POST',
      path: `/v1/authorizations/${encodeURIComponent(request.providerTransactionId)}/${path}`,
      headers: { 'x-merchant-id': target.merchantId, 'idempotency-key': request.idempotencyKey },
      body: kind === 'void' ? {} : { amount: minor(request.amount, request.currency) },
    };
  },

  buildReversal(target, idempotencyKey) {
    return {
      method: 'POST',
      path: '/v1/reversals',
      headers: { 'x-merchant-id': target.merchantId, 'idempotency-key': `reversal:${idempotencyKey}` },
      body: { idempotency_key: idempotencyKey },
    };
  },

  mapResponse(httpStatus, body): ProviderResult {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
    const iso = typeof b.iso8583_response_code === 'string' ? b.iso8583_response_code : null;
    let category = iso ? categoryOfIsoCode(iso) : 'PROVIDER_ERROR';
    if (httpStatus >= 500) category = 'PROVIDER_ERROR';
    else if (httpStatus >= 400 && category === 'APPROVED') category = 'SOFT_DECLINE';
    const providerStatus =
      category === 'APPROVED' ? 'APPROVED' : category === 'THREE_D_SECURE' ? 'PENDING' : category === 'PROVIDER_ERROR' ? 'ERROR' : 'DECLINED';
    return {
      category,
      providerStatus,
      providerTransactionId: typeof b.id === 'string' ? b.id : null,
      responseCode: (iso && RESPONSE_CODES[iso]) || (httpStatus >= 500 ? 'PROVIDER_ERROR' : 'DECLINED'),
      responseMessage: String(b.message ?? (iso ? ISO8583_MESSAGES[iso] : null) ?? `HTTP ${httpStatus}`),
      iso8583Code: iso,
      iso8583Message: iso ? (b.iso8583_response_message ?? ISO8583_MESSAGES[iso] ?? null) : null,
      httpStatus,
      rawResponse: body,
      threeDsRedirectUrl: b.three_d_secure?.redirect_url ?? null,
    };
  },
});
