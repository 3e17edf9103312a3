/**
 * The payment method vocabulary: every value of payment_method.type (payments, refunds,
 * routing conditions, enrollable methods) and of dry-run payment_method_type.
 *
 * The spec lists nine values and says 24 further upper-case codes name wallets, tokens
 * and local payment schemes without listing them (they are trade names); the 24 below are
 * ours. Each value carries its flow, which decides what a payment of that type needs and
 * what kind of connector can serve it:
 *   card          card data (inline, one-time token or vaulted token) sent server to server
 *   redirect      the payer approves at the provider, bank or wallet (web page, app push or
 *                 QR code) and the outcome arrives asynchronously
 *   voucher       the payer gets a reference or barcode and pays in cash or at a bank later
 *   bank_transfer funds move between bank accounts: the payer pushes them with returned
 *                 instructions (key, QR, CLABE) or the account is debited under a mandate
 *   wallet_token  a wallet or network token stands in for the card (payment data with a
 *                 cryptogram, or a one-time approval code) and is sent server to server
 *
 * Pure data: no I/O, importable by workflows.
 */

export const PAYMENT_FLOWS = ['card', 'redirect', 'voucher', 'bank_transfer', 'wallet_token'] as const;
export type PaymentFlow = (typeof PAYMENT_FLOWS)[number];

/** Family of a method, as enrollable and enrolled methods show it (spec: CARD, WALLET observed). */
export const METHOD_CATEGORIES = ['CARD', 'WALLET', 'BANK_TRANSFER', 'CASH', 'BNPL', 'CRYPTO'] as const;
export type MethodCategory = (typeof METHOD_CATEGORIES)[number];

export interface PaymentMethodDefinition {
  readonly code: string;
  readonly name: string;
  readonly flow: PaymentFlow;
  readonly category: MethodCategory;
  /** Listed by value in the spec (the other 24 are the unnamed trade names). */
  readonly listedInSpec: boolean;
}

const SPEC = true;
const OURS = false;

// Kept in one table so the README, the codecs and the tests read the same source.
export const PAYMENT_METHODS = [
  // --- the spec's values
  { code: 'CARD', name: 'Card', flow: 'card', category: 'CARD', listedInSpec: SPEC },
  { code: 'CREDIT_CARD', name: 'Credit card', flow: 'card', category: 'CARD', listedInSpec: SPEC },
  { code: 'CREDIT_CARD_REFERENCE_TRANSACTION', name: 'Card, reference transaction', flow: 'card', category: 'CARD', listedInSpec: SPEC },
  { code: 'DEBIT_CARD', name: 'Debit card', flow: 'card', category: 'CARD', listedInSpec: SPEC },
  { code: 'TEST_CREDIT_CARD', name: 'Test credit card', flow: 'card', category: 'CARD', listedInSpec: SPEC },
  { code: 'ACH', name: 'ACH debit', flow: 'bank_transfer', category: 'BANK_TRANSFER', listedInSpec: SPEC },
  { code: 'BANK_TRANSFER', name: 'Bank transfer', flow: 'bank_transfer', category: 'BANK_TRANSFER', listedInSpec: SPEC },
  { code: 'CRYPTO', name: 'Crypto currency', flow: 'redirect', category: 'CRYPTO', listedInSpec: SPEC },
  { code: 'CASH', name: 'Cash', flow: 'voucher', category: 'CASH', listedInSpec: SPEC },
  // --- tokens
  { code: 'NETWORK_TOKEN', name: 'Card network token', flow: 'wallet_token', category: 'CARD', listedInSpec: OURS },
  { code: 'CLICK_TO_PAY', name: 'Click to Pay', flow: 'wallet_token', category: 'WALLET', listedInSpec: OURS },
  // --- wallets
  { code: 'APPLE_PAY', name: 'Apple Pay', flow: 'wallet_token', category: 'WALLET', listedInSpec: OURS },
  { code: 'GOOGLE_PAY', name: 'Google Pay', flow: 'wallet_token', category: 'WALLET', listedInSpec: OURS },
  { code: 'SAMSUNG_PAY', name: 'Samsung Pay', flow: 'wallet_token', category: 'WALLET', listedInSpec: OURS },
  { code: 'PAYPAL', name: 'PayPal', flow: 'redirect', category: 'WALLET', listedInSpec: OURS },
  { code: 'MERCADO_PAGO_WALLET', name: 'Mercado Pago wallet', flow: 'redirect', category: 'WALLET', listedInSpec: OURS },
  { code: 'NEQUI', name: 'Nequi', flow: 'redirect', category: 'WALLET', listedInSpec: OURS },
  { code: 'DAVIPLATA', name: 'DaviPlata', flow: 'redirect', category: 'WALLET', listedInSpec: OURS },
  { code: 'YAPE', name: 'Yape', flow: 'wallet_token', category: 'WALLET', listedInSpec: OURS },
  // --- buy now, pay later
  { code: 'KLARNA', name: 'Klarna', flow: 'redirect', category: 'BNPL', listedInSpec: OURS },
  { code: 'AFTERPAY', name: 'Afterpay', flow: 'redirect', category: 'BNPL', listedInSpec: OURS },
  // --- bank schemes
  { code: 'PIX', name: 'Pix', flow: 'bank_transfer', category: 'BANK_TRANSFER', listedInSpec: OURS },
  { code: 'SPEI', name: 'SPEI', flow: 'bank_transfer', category: 'BANK_TRANSFER', listedInSpec: OURS },
  { code: 'PSE', name: 'PSE', flow: 'redirect', category: 'BANK_TRANSFER', listedInSpec: OURS },
  { code: 'WEBPAY', name: 'Webpay', flow: 'redirect', category: 'CARD', listedInSpec: OURS },
  { code: 'UPI', name: 'UPI', flow: 'redirect', category: 'BANK_TRANSFER', listedInSpec: OURS },
  { code: 'SEPA_DIRECT_DEBIT', name: 'SEPA Direct Debit', flow: 'bank_transfer', category: 'BANK_TRANSFER', listedInSpec: OURS },
  // --- cash vouchers
  { code: 'BOLETO', name: 'Boleto Bancário', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
  { code: 'OXXO', name: 'OXXO', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
  { code: 'PAGOEFECTIVO', name: 'PagoEfectivo', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
  { code: 'EFECTY', name: 'Efecty', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
  { code: 'RAPIPAGO', name: 'Rapipago', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
  { code: 'PAGO_FACIL', name: 'Pago Fácil', flow: 'voucher', category: 'CASH', listedInSpec: OURS },
] as const satisfies readonly PaymentMethodDefinition[];

export type PaymentMethodType = (typeof PAYMENT_METHODS)[number]['code'];

/** payment_method.type; the same vocabulary dry-run uses for payment_method_type. */
export const PAYMENT_METHOD_TYPES: readonly PaymentMethodType[] = PAYMENT_METHODS.map((m) => m.code);

const BY_CODE = new Map<string, PaymentMethodDefinition>(PAYMENT_METHODS.map((m) => [m.code, m]));

export function paymentMethodDefinition(code: string): PaymentMethodDefinition | undefined {
  return BY_CODE.get(code);
}

export function isPaymentMethodType(code: string): code is PaymentMethodType {
  return BY_CODE.has(code);
}

export function flowOf(code: string): PaymentFlow | undefined {
  return BY_CODE.get(code)?.flow;
}

/** Method types whose source is card data (inline, one-time token or vaulted token). */
export const CARD_METHOD_TYPES: readonly PaymentMethodType[] = PAYMENT_METHODS.filter((m) => m.flow === 'card').map((m) => m.code);
