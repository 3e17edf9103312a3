/**
 * The provider catalogue: the payment providers Switchyard knows by code, as data. One
 * table serves dry-run (provider_id), provider connections and routing (which provider a
 * connection names, which methods and countries it can take) and the capability checks
 * that answer 422 (credits, onboardings).
 *
 * Facts come from each provider's public documentation (docsUrl), written in our words:
 * - countries: where the provider documents processing (the payment's country); for
 *   global acquirers the main markets, not every country they reach;
 * - currencies: ISO 4217 codes documented for those markets (global acquirers present in
 *   many more);
 * - amountUnit: how the amount travels on the wire (minor: integer in the currency's
 *   minor unit; major: decimal in the currency's unit);
 * - countryFormat: how the API spells a country (ISO 3166-1 alpha-2 or alpha-3); null when
 *   the API takes no country code or free text;
 * - credits: where the provider can push funds without an original payment, per
 *   destination kind (CARD: unreferenced refund; BANK_TRANSFER / WALLET: payout).
 *
 * Having an entry here does not mean a connector exists: SANDBOX, STRIPE and ADYEN have one
 * today, for cards (activities/providers); a connection to another provider is configuration
 * that routing skips until its connector ships.
 *
 * Pure data: no I/O, importable by workflows.
 */
import { ISO_COUNTRY_CODES, ISO_CURRENCY_CODES } from '../iso-codes';
import { CARD_METHOD_TYPES, PaymentMethodType } from '../payments/methods';

export const CAPABILITIES = [
  'authorize',
  'capture',
  'partial_capture',
  'cancel',
  'refund',
  'partial_refund',
  'unreferenced_refund',
  'payout',
  'split',
  'three_d_secure',
  'tokenization',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const REGIONS = ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST', 'AFRICA'] as const;
export type Region = (typeof REGIONS)[number];

/** Destination kinds of a credit (unreferenced refund). */
export type CreditMethod = 'CARD' | 'BANK_TRANSFER' | 'WALLET';

export type AmountUnit = 'minor' | 'major';
export type CountryFormat = 'alpha-2' | 'alpha-3';

export interface ProviderEntry {
  readonly code: string;
  readonly name: string;
  readonly regions: readonly Region[];
  readonly countries: readonly string[];
  readonly currencies: readonly string[];
  readonly paymentMethodTypes: readonly PaymentMethodType[];
  readonly capabilities: readonly Capability[];
  readonly credits: Readonly<Partial<Record<CreditMethod, readonly string[]>>>;
  readonly amountUnit: AmountUnit;
  readonly countryFormat: CountryFormat | null;
  readonly docsUrl: string;
  /** Domains of the provider's API hosts (live and test), so traffic names its provider. */
  readonly apiDomains?: readonly string[];
  /**
   * Key names (lower case, letters and digits only) that the provider's API documents and
   * other APIs rarely use, so traffic behind an unknown host (a proxy, a relabelled
   * connector) still names its provider when it carries several of them.
   */
  readonly payloadMarkers?: readonly string[];
}

// ---- country groups (ISO 3166-1 alpha-2) --------------------------------------------

const EU = ['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];
const EUROPE = [...EU, 'GB', 'CH', 'NO', 'IS', 'LI'];
const EU_CURRENCIES = ['EUR', 'GBP', 'CHF', 'SEK', 'DKK', 'NOK', 'PLN', 'CZK', 'HUF', 'RON', 'BGN'];
/** SEPA members among the eurozone's founding markets; the sandbox credits bank accounts there. */
export const SEPA_COUNTRIES = ['AT', 'BE', 'DE', 'ES', 'FI', 'FR', 'IE', 'IT', 'LU', 'NL', 'PT'] as const;
const GULF = ['AE', 'SA', 'KW', 'BH', 'QA', 'OM'];

// The usual card set: every card spelling of the vocabulary is the same card flow.
const CARDS: readonly PaymentMethodType[] = CARD_METHOD_TYPES;

// Capability sets that most card acquirers document.
const ACQUIRING: readonly Capability[] = ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'];

const NO_CREDITS = {} as const;

// ---- the catalogue ------------------------------------------------------------------

const ENTRIES: readonly ProviderEntry[] = [
  // --- global and North American acquirers and gateways
  {
    code: 'STRIPE', name: 'Stripe',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST'],
    countries: ['US', 'CA', 'MX', 'BR', ...EUROPE.filter((c) => c !== 'IS'), 'GI', 'AU', 'NZ', 'JP', 'SG', 'HK', 'MY', 'TH', 'IN', 'AE'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', ...EU_CURRENCIES, 'AUD', 'NZD', 'JPY', 'SGD', 'HKD', 'MYR', 'THB', 'INR', 'AED'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'ACH', 'SEPA_DIRECT_DEBIT', 'BANK_TRANSFER', 'PAYPAL', 'KLARNA', 'AFTERPAY', 'PIX', 'BOLETO', 'OXXO'],
    capabilities: [...ACQUIRING, 'payout', 'split'],
    credits: { BANK_TRANSFER: ['US', 'CA', 'GB', ...EU, 'AU'] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.stripe.com/api',
    payloadMarkers: ['capturemethod', 'paymentmethodtypes', 'paymentmethoddata', 'amountcapturable', 'amountreceived', 'statementdescriptorsuffix', 'receiptemail', 'latestcharge', 'balancetransaction', 'clientsecret'],
    apiDomains: ['stripe.com'],
  },
  {
    code: 'ADYEN', name: 'Adyen',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST'],
    countries: ['US', 'CA', 'MX', 'BR', ...EUROPE, 'AU', 'NZ', 'JP', 'SG', 'HK', 'MY', 'AE'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', ...EU_CURRENCIES, 'AUD', 'NZD', 'JPY', 'SGD', 'HKD', 'MYR', 'AED'],
    paymentMethodTypes: [...CARDS, 'NETWORK_TOKEN', 'CLICK_TO_PAY', 'APPLE_PAY', 'GOOGLE_PAY', 'SAMSUNG_PAY', 'PAYPAL', 'KLARNA', 'AFTERPAY', 'ACH', 'SEPA_DIRECT_DEBIT', 'PIX', 'BOLETO', 'OXXO'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout', 'split'],
    // Adyen documents that unreferenced refunds are not possible in Brazil and Mexico.
    credits: { CARD: ['US', 'CA', ...EUROPE, 'AU', 'NZ', 'JP', 'SG', 'HK', 'MY', 'AE'], BANK_TRANSFER: ['US', 'CA', ...EUROPE, 'AU'] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.adyen.com/api-explorer/',
    payloadMarkers: ['pspreference', 'merchantaccount', 'merchantaccountcode', 'shopperreference', 'shopperinteraction', 'shopperemail', 'recurringprocessingmodel', 'notificationrequestitem', 'refusalreasoncode'],
    apiDomains: ['adyen.com', 'adyenpayments.com'],
  },
  {
    code: 'CHECKOUT', name: 'Checkout.com',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST', 'AFRICA'],
    countries: ['US', ...EUROPE.filter((c) => c !== 'IS' && c !== 'LI'), ...GULF, 'JO', 'EG', 'HK', 'SG', 'AU'],
    currencies: ['USD', ...EU_CURRENCIES, 'AED', 'SAR', 'KWD', 'BHD', 'QAR', 'OMR', 'JOD', 'EGP', 'HKD', 'SGD', 'AUD'],
    paymentMethodTypes: [...CARDS, 'NETWORK_TOKEN', 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'KLARNA', 'ACH', 'SEPA_DIRECT_DEBIT'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout', 'split'],
    // Unreferenced refunds are documented for US-issued cards on payments made in the US.
    credits: { CARD: ['US'], BANK_TRANSFER: ['US', 'GB', ...EU] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://www.checkout.com/docs',
    payloadMarkers: ['processingchannelid', 'actionid', 'responsesummary', 'schemeid', 'successurl', 'failureurl'],
    apiDomains: ['checkout.com'],
  },
  {
    code: 'BRAINTREE', name: 'Braintree',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', ...EUROPE.filter((c) => c !== 'IS' && c !== 'LI'), 'AU', 'NZ', 'HK', 'SG', 'MY'],
    currencies: ['USD', 'CAD', ...EU_CURRENCIES, 'AUD', 'NZD', 'HKD', 'SGD', 'MYR'],
    paymentMethodTypes: [...CARDS, 'PAYPAL', 'APPLE_PAY', 'GOOGLE_PAY', 'ACH'],
    // Detached credits (transaction.credit) are off by default and enabled on request.
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['US', 'CA'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developer.paypal.com/braintree/docs',
    payloadMarkers: ['submitforsettlement', 'merchantaccountid', 'processorresponsecode', 'processorresponsetext', 'currencyisocode'],
    apiDomains: ['braintreegateway.com'],
  },
  {
    code: 'WORLDPAY', name: 'Worldpay',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', ...EUROPE, 'AU', 'SG', 'HK', 'JP'],
    currencies: ['USD', 'CAD', ...EU_CURRENCIES, 'AUD', 'SGD', 'HKD', 'JPY'],
    paymentMethodTypes: [...CARDS, 'NETWORK_TOKEN', 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'KLARNA'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout'],
    credits: { CARD: ['US', 'GB', ...EU], BANK_TRANSFER: ['US', 'GB', ...EU] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://developer.worldpay.com/',
    payloadMarkers: ['paymentservice', 'ordercode', 'merchantcode', 'installationid', 'lastevent', 'shopperemailaddress', 'orderstatusevent'],
    apiDomains: ['worldpay.com'],
  },
  {
    code: 'CYBERSOURCE', name: 'Cybersource',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST'],
    countries: ['US', 'CA', 'MX', 'BR', ...EUROPE, 'AU', 'NZ', 'JP', 'SG', 'HK', 'AE'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', ...EU_CURRENCIES, 'AUD', 'NZD', 'JPY', 'SGD', 'HKD', 'AED'],
    paymentMethodTypes: [...CARDS, 'NETWORK_TOKEN', 'CLICK_TO_PAY', 'APPLE_PAY', 'GOOGLE_PAY', 'SAMSUNG_PAY', 'ACH'],
    // Stand-alone credits; its Payouts API pushes to cards too, not to bank accounts.
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['US', 'CA', 'GB', ...EU, 'AU', 'NZ', 'SG', 'HK', 'AE'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developer.cybersource.com/api-reference-assets/index.html',
    apiDomains: ['cybersource.com'],
  },
  {
    code: 'AUTHORIZE_NET', name: 'Authorize.net',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'GB', ...EU, 'AU'],
    currencies: ['USD', 'CAD', 'GBP', 'EUR', 'AUD'],
    paymentMethodTypes: [...CARDS, 'ACH', 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL'],
    // Unlinked credits need the merchant to be enrolled for them.
    capabilities: ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund', 'unreferenced_refund', 'tokenization'],
    credits: { CARD: ['US'] },
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://developer.authorize.net/api/reference/',
    payloadMarkers: ['createtransactionrequest', 'createtransactionresponse', 'merchantauthentication', 'transactionrequest', 'transactionresponse', 'transactionkey'],
    apiDomains: ['authorize.net'],
  },
  {
    code: 'PAYPAL', name: 'PayPal',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'MX', 'BR', 'AR', 'CL', 'CO', 'PE', ...EUROPE, 'AU', 'NZ', 'JP', 'SG', 'HK', 'IL'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', ...EU_CURRENCIES, 'AUD', 'NZD', 'JPY', 'SGD', 'HKD', 'ILS'],
    paymentMethodTypes: [...CARDS, 'PAYPAL', 'APPLE_PAY', 'GOOGLE_PAY'],
    capabilities: ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund', 'payout', 'three_d_secure', 'tokenization'],
    // Payouts land in PayPal (or Venmo, US) wallets.
    credits: { WALLET: ['US', 'CA', 'MX', 'BR', ...EUROPE, 'AU', 'NZ', 'JP', 'SG', 'HK', 'IL'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developer.paypal.com/api/rest/',
  },
  {
    code: 'NUVEI', name: 'Nuvei',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'MIDDLE_EAST'],
    countries: ['US', 'CA', 'MX', 'BR', 'AR', 'CL', 'CO', 'PE', ...EUROPE, 'IL'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', 'ARS', 'CLP', 'COP', 'PEN', ...EU_CURRENCIES, 'ILS'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'ACH', 'SEPA_DIRECT_DEBIT', 'PIX', 'BOLETO', 'OXXO', 'SPEI', 'PSE', 'CRYPTO'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout'],
    credits: { CARD: ['US', 'CA', 'GB', ...EU], BANK_TRANSFER: ['US', 'CA', 'GB', ...EU, 'BR', 'MX'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.nuvei.com/',
  },
  {
    code: 'SQUARE', name: 'Square',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'GB', 'IE', 'FR', 'ES', 'AU', 'JP'],
    currencies: ['USD', 'CAD', 'GBP', 'EUR', 'AUD', 'JPY'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'ACH', 'AFTERPAY'],
    // Delayed capture takes the whole authorized amount; refunds always name a payment online.
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://developer.squareup.com/reference/square',
  },
  {
    code: 'GLOBAL_PAYMENTS', name: 'Global Payments',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'GB', 'IE', 'ES', 'DE', 'AT', 'CZ', 'SK', 'RO', 'AU', 'NZ', 'HK', 'SG', 'MY'],
    currencies: ['USD', 'CAD', 'GBP', 'EUR', 'CZK', 'RON', 'AUD', 'NZD', 'HKD', 'SGD', 'MYR'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'CLICK_TO_PAY', 'PAYPAL', 'ACH'],
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['US', 'CA', 'GB', 'IE', 'ES'] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://developer.globalpay.com/',
  },
  {
    code: 'ELAVON', name: 'Elavon (Converge)',
    regions: ['NORTH_AMERICA'],
    countries: ['US', 'CA'],
    currencies: ['USD', 'CAD'],
    paymentMethodTypes: [...CARDS, 'ACH', 'APPLE_PAY', 'GOOGLE_PAY'],
    // cccredit refunds a card by its number without naming a transaction.
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['US', 'CA'] },
    amountUnit: 'major', countryFormat: 'alpha-3', docsUrl: 'https://developer.elavon.com/',
  },
  {
    code: 'FISERV', name: 'Fiserv (Commerce Hub)',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE'],
    countries: ['US', 'CA', 'MX', 'AR', 'BR', 'GB', 'DE', 'PL'],
    currencies: ['USD', 'CAD', 'MXN', 'ARS', 'BRL', 'GBP', 'EUR', 'PLN'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'ACH'],
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['US', 'CA'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developer.fiserv.com/product/CommerceHub',
  },
  {
    code: 'MONERIS', name: 'Moneris',
    regions: ['NORTH_AMERICA'],
    countries: ['CA', 'US'],
    currencies: ['CAD', 'USD'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY'],
    // "Independent refund": a card credit that references no purchase.
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['CA', 'US'] },
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://developer.moneris.com/',
  },
  {
    code: 'BAMBORA', name: 'Bambora (North America)',
    regions: ['NORTH_AMERICA'],
    countries: ['CA', 'US'],
    currencies: ['CAD', 'USD'],
    paymentMethodTypes: [...CARDS, 'ACH', 'APPLE_PAY', 'GOOGLE_PAY'],
    capabilities: [...ACQUIRING, 'unreferenced_refund'],
    credits: { CARD: ['CA', 'US'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://dev.na.bambora.com/docs/',
  },
  {
    code: 'SHIFT4', name: 'Shift4',
    regions: ['NORTH_AMERICA', 'EUROPE'],
    countries: ['US', 'CA', ...EU, 'GB', 'CH'],
    currencies: ['USD', 'CAD', ...EU_CURRENCIES],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY'],
    capabilities: ACQUIRING,
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://dev.shift4.com/docs/api',
  },
  {
    code: 'PAYSAFE', name: 'Paysafe',
    regions: ['NORTH_AMERICA', 'EUROPE'],
    countries: ['US', 'CA', 'GB', ...EU],
    currencies: ['USD', 'CAD', 'GBP', 'EUR', 'SEK', 'DKK', 'PLN', 'CZK', 'HUF', 'RON', 'BGN'],
    paymentMethodTypes: [...CARDS, 'ACH', 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'BANK_TRANSFER', 'CASH'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout'],
    credits: { CARD: ['US', 'CA', 'GB', ...EU], BANK_TRANSFER: ['US', 'CA'] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://developer.paysafe.com/',
  },
  // --- European providers
  {
    code: 'WORLDLINE', name: 'Worldline',
    regions: ['EUROPE'],
    countries: EUROPE,
    currencies: EU_CURRENCIES,
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'KLARNA', 'SEPA_DIRECT_DEBIT'],
    capabilities: [...ACQUIRING, 'unreferenced_refund', 'payout'],
    credits: { CARD: EUROPE, BANK_TRANSFER: [...SEPA_COUNTRIES] },
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.direct.worldline-solutions.com/',
  },
  {
    code: 'MOLLIE', name: 'Mollie',
    regions: ['EUROPE'],
    countries: [...EU, 'GB', 'CH'],
    currencies: EU_CURRENCIES,
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'PAYPAL', 'KLARNA', 'SEPA_DIRECT_DEBIT', 'BANK_TRANSFER'],
    capabilities: [...ACQUIRING, 'split'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.mollie.com/',
  },
  {
    code: 'KLARNA', name: 'Klarna',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'MX', 'AT', 'BE', 'CZ', 'DE', 'DK', 'ES', 'FI', 'FR', 'GR', 'HU', 'IE', 'IT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SK', 'GB', 'CH', 'NO', 'AU', 'NZ'],
    currencies: ['USD', 'CAD', 'MXN', 'EUR', 'CZK', 'DKK', 'HUF', 'PLN', 'RON', 'SEK', 'GBP', 'CHF', 'NOK', 'AUD', 'NZD'],
    paymentMethodTypes: ['KLARNA'],
    capabilities: ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.klarna.com/',
  },
  {
    code: 'AFTERPAY', name: 'Afterpay (Clearpay)',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'GB', 'AU', 'NZ'],
    currencies: ['USD', 'CAD', 'GBP', 'AUD', 'NZD'],
    paymentMethodTypes: ['AFTERPAY'],
    capabilities: ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developers.afterpay.com/',
  },
  {
    code: 'TRUST_PAYMENTS', name: 'Trust Payments',
    regions: ['NORTH_AMERICA', 'EUROPE'],
    countries: ['GB', ...EU, 'US'],
    currencies: ['GBP', 'EUR', 'USD', 'SEK', 'DKK', 'PLN', 'CZK', 'HUF'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL'],
    capabilities: ACQUIRING,
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://help.trustpayments.com/',
  },
  // --- Asia-Pacific, Africa and cross-border
  {
    code: 'RAZORPAY', name: 'Razorpay',
    regions: ['ASIA_PACIFIC'],
    countries: ['IN', 'MY', 'SG'],
    currencies: ['INR', 'MYR', 'SGD', 'USD'],
    paymentMethodTypes: [...CARDS, 'UPI', 'BANK_TRANSFER', 'PAYPAL'],
    // Capture takes the authorized amount; uncaptured payments are released automatically.
    capabilities: ['authorize', 'capture', 'refund', 'partial_refund', 'payout', 'split', 'three_d_secure', 'tokenization'],
    credits: { BANK_TRANSFER: ['IN'], WALLET: ['IN'] },
    amountUnit: 'minor', countryFormat: null, docsUrl: 'https://razorpay.com/docs/api/',
  },
  {
    code: 'AIRWALLEX', name: 'Airwallex',
    regions: ['NORTH_AMERICA', 'EUROPE', 'ASIA_PACIFIC'],
    countries: ['US', 'CA', 'GB', ...EU, 'AU', 'NZ', 'HK', 'SG', 'JP', 'CN'],
    currencies: ['USD', 'CAD', 'GBP', 'EUR', 'AUD', 'NZD', 'HKD', 'SGD', 'JPY', 'CNY'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'PAYPAL', 'KLARNA', 'AFTERPAY', 'BANK_TRANSFER'],
    capabilities: [...ACQUIRING, 'payout'],
    credits: { BANK_TRANSFER: ['US', 'CA', 'GB', ...EU, 'AU', 'NZ', 'HK', 'SG', 'JP', 'CN'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://www.airwallex.com/docs/api',
  },
  {
    code: 'TWOC2P', name: '2C2P',
    regions: ['ASIA_PACIFIC'],
    countries: ['SG', 'TH', 'MY', 'ID', 'PH', 'VN', 'HK', 'MM', 'KH'],
    currencies: ['SGD', 'THB', 'MYR', 'IDR', 'PHP', 'VND', 'HKD', 'MMK', 'KHR', 'USD'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'BANK_TRANSFER', 'CASH'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://developer.2c2p.com/',
  },
  {
    code: 'XENDIT', name: 'Xendit',
    regions: ['ASIA_PACIFIC'],
    countries: ['ID', 'PH', 'MY', 'TH', 'VN'],
    currencies: ['IDR', 'PHP', 'MYR', 'THB', 'VND', 'USD'],
    paymentMethodTypes: [...CARDS, 'BANK_TRANSFER', 'CASH'],
    capabilities: [...ACQUIRING, 'payout', 'split'],
    credits: { BANK_TRANSFER: ['ID', 'PH', 'MY', 'TH', 'VN'], WALLET: ['ID', 'PH'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.xendit.co/',
  },
  {
    code: 'MIDTRANS', name: 'Midtrans',
    regions: ['ASIA_PACIFIC'],
    countries: ['ID'],
    currencies: ['IDR'],
    paymentMethodTypes: [...CARDS, 'BANK_TRANSFER', 'CASH'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'payout', 'three_d_secure', 'tokenization'],
    credits: { BANK_TRANSFER: ['ID'], WALLET: ['ID'] },
    amountUnit: 'major', countryFormat: 'alpha-3', docsUrl: 'https://docs.midtrans.com/',
  },
  {
    code: 'PAYSTACK', name: 'Paystack',
    regions: ['AFRICA'],
    countries: ['NG', 'GH', 'ZA', 'KE', 'CI'],
    currencies: ['NGN', 'GHS', 'ZAR', 'KES', 'XOF', 'USD'],
    paymentMethodTypes: [...CARDS, 'BANK_TRANSFER', 'APPLE_PAY'],
    capabilities: ['authorize', 'refund', 'partial_refund', 'payout', 'split', 'three_d_secure', 'tokenization'],
    credits: { BANK_TRANSFER: ['NG', 'GH', 'ZA', 'KE'], WALLET: ['GH', 'KE'] },
    amountUnit: 'minor', countryFormat: null, docsUrl: 'https://paystack.com/docs/api/',
  },
  {
    code: 'FLUTTERWAVE', name: 'Flutterwave',
    regions: ['AFRICA'],
    countries: ['NG', 'GH', 'KE', 'ZA', 'UG', 'TZ', 'RW', 'ZM', 'CM', 'CI', 'SN', 'EG'],
    currencies: ['NGN', 'GHS', 'KES', 'ZAR', 'UGX', 'TZS', 'RWF', 'ZMW', 'XAF', 'XOF', 'EGP', 'USD', 'EUR', 'GBP'],
    paymentMethodTypes: [...CARDS, 'BANK_TRANSFER', 'APPLE_PAY', 'GOOGLE_PAY'],
    capabilities: [...ACQUIRING, 'payout', 'split'],
    credits: { BANK_TRANSFER: ['NG', 'GH', 'KE', 'ZA', 'UG', 'TZ', 'RW'], WALLET: ['GH', 'KE', 'UG', 'TZ', 'RW', 'ZM', 'CM', 'CI', 'SN'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developer.flutterwave.com/',
  },
  {
    code: 'RAPYD', name: 'Rapyd',
    regions: ['NORTH_AMERICA', 'LATIN_AMERICA', 'EUROPE', 'ASIA_PACIFIC', 'MIDDLE_EAST'],
    countries: ['US', 'CA', 'MX', 'BR', 'CO', 'CL', 'PE', 'AR', 'GB', ...EU, 'SG', 'HK', 'MY', 'TH', 'PH', 'ID', 'AU', 'JP', 'IL', 'AE'],
    currencies: ['USD', 'CAD', 'MXN', 'BRL', 'COP', 'CLP', 'PEN', 'ARS', 'GBP', 'EUR', 'SEK', 'DKK', 'PLN', 'CZK', 'SGD', 'HKD', 'MYR', 'THB', 'PHP', 'IDR', 'AUD', 'JPY', 'ILS', 'AED'],
    paymentMethodTypes: [...CARDS, 'APPLE_PAY', 'GOOGLE_PAY', 'BANK_TRANSFER', 'CASH', 'PIX', 'BOLETO', 'OXXO', 'SPEI', 'PSE', 'EFECTY'],
    capabilities: [...ACQUIRING, 'payout', 'split'],
    credits: { BANK_TRANSFER: ['US', 'CA', 'MX', 'BR', 'CO', 'CL', 'PE', 'GB', ...EU, 'SG', 'HK', 'MY', 'TH', 'PH', 'ID', 'AU', 'JP', 'IL', 'AE'], WALLET: ['MX', 'BR', 'CO', 'PH', 'ID', 'MY', 'TH', 'SG'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.rapyd.net/',
  },
  // --- Latin America
  {
    code: 'DLOCAL', name: 'dLocal',
    regions: ['LATIN_AMERICA', 'ASIA_PACIFIC', 'MIDDLE_EAST', 'AFRICA'],
    countries: ['AR', 'BO', 'BR', 'CL', 'CO', 'CR', 'DO', 'EC', 'GT', 'MX', 'PA', 'PE', 'PY', 'SV', 'UY', 'IN', 'ID', 'MY', 'PH', 'TH', 'VN', 'TR', 'SA', 'EG', 'MA', 'NG', 'KE', 'GH', 'ZA'],
    currencies: ['ARS', 'BOB', 'BRL', 'CLP', 'COP', 'CRC', 'DOP', 'GTQ', 'MXN', 'PAB', 'PEN', 'PYG', 'UYU', 'INR', 'IDR', 'MYR', 'PHP', 'THB', 'VND', 'TRY', 'SAR', 'EGP', 'MAD', 'NGN', 'KES', 'GHS', 'ZAR', 'USD'],
    paymentMethodTypes: [...CARDS, 'BANK_TRANSFER', 'CASH', 'PIX', 'BOLETO', 'OXXO', 'SPEI', 'PSE', 'EFECTY', 'PAGOEFECTIVO', 'RAPIPAGO', 'PAGO_FACIL', 'WEBPAY'],
    capabilities: [...ACQUIRING, 'payout'],
    credits: { BANK_TRANSFER: ['AR', 'BO', 'BR', 'CL', 'CO', 'CR', 'DO', 'EC', 'GT', 'MX', 'PA', 'PE', 'PY', 'SV', 'UY', 'IN', 'ID', 'MY', 'PH', 'TH', 'VN', 'TR', 'EG', 'MA', 'NG', 'KE', 'GH', 'ZA'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.dlocal.com/',
    payloadMarkers: ['paymentmethodflow', 'paymentmethodid', 'notificationurl', 'userreference'],
    apiDomains: ['dlocal.com'],
  },
  {
    code: 'EBANX', name: 'EBANX',
    regions: ['LATIN_AMERICA'],
    countries: ['AR', 'BO', 'BR', 'CL', 'CO', 'EC', 'GT', 'MX', 'PE', 'PY', 'SV', 'UY'],
    currencies: ['ARS', 'BOB', 'BRL', 'CLP', 'COP', 'GTQ', 'MXN', 'PEN', 'PYG', 'UYU', 'USD'],
    paymentMethodTypes: [...CARDS, 'PIX', 'BOLETO', 'OXXO', 'SPEI', 'PSE', 'NEQUI', 'EFECTY', 'PAGOEFECTIVO', 'RAPIPAGO', 'PAGO_FACIL', 'WEBPAY'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'payout', 'three_d_secure', 'tokenization'],
    credits: { BANK_TRANSFER: ['BR', 'MX', 'CO', 'CL', 'PE', 'AR'], WALLET: ['BR'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.ebanx.com/',
    apiDomains: ['ebanx.com'],
  },
  {
    code: 'MERCADO_PAGO', name: 'Mercado Pago',
    regions: ['LATIN_AMERICA'],
    countries: ['AR', 'BR', 'CL', 'CO', 'MX', 'PE', 'UY'],
    currencies: ['ARS', 'BRL', 'CLP', 'COP', 'MXN', 'PEN', 'UYU'],
    paymentMethodTypes: [...CARDS, 'MERCADO_PAGO_WALLET', 'PIX', 'BOLETO', 'OXXO', 'PSE', 'EFECTY', 'PAGOEFECTIVO', 'RAPIPAGO', 'PAGO_FACIL'],
    capabilities: [...ACQUIRING, 'split'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://www.mercadopago.com/developers/en/reference',
    payloadMarkers: ['transactionamount', 'externalreference', 'binarymode', 'statementdescriptor', 'issuerid', 'paymentmethodid', 'notificationurl', 'currencyid'],
    apiDomains: ['mercadopago.com', 'mercadolibre.com'],
  },
  {
    code: 'PAYU', name: 'PayU Latam',
    regions: ['LATIN_AMERICA'],
    countries: ['AR', 'BR', 'CL', 'CO', 'MX', 'PA', 'PE'],
    currencies: ['ARS', 'BRL', 'CLP', 'COP', 'MXN', 'PEN', 'USD'],
    paymentMethodTypes: [...CARDS, 'PSE', 'EFECTY', 'BOLETO', 'PIX', 'OXXO', 'SPEI', 'PAGOEFECTIVO', 'RAPIPAGO', 'PAGO_FACIL'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://developers.payulatam.com/latam/en/docs.html',
    payloadMarkers: ['txvalue', 'referencecode', 'apilogin', 'devicesessionid', 'notifyurl'],
    apiDomains: ['payulatam.com'],
  },
  {
    code: 'KUSHKI', name: 'Kushki',
    regions: ['LATIN_AMERICA'],
    countries: ['CO', 'EC', 'PE', 'CL', 'MX'],
    currencies: ['COP', 'USD', 'PEN', 'CLP', 'MXN'],
    paymentMethodTypes: [...CARDS, 'PSE', 'SPEI', 'BANK_TRANSFER', 'CASH'],
    capabilities: [...ACQUIRING, 'payout'],
    credits: { BANK_TRANSFER: ['CO', 'EC', 'PE', 'CL', 'MX'] },
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://docs.kushki.com/',
  },
  {
    code: 'OPENPAY', name: 'Openpay',
    regions: ['LATIN_AMERICA'],
    countries: ['MX', 'CO', 'PE'],
    currencies: ['MXN', 'COP', 'PEN', 'USD'],
    paymentMethodTypes: [...CARDS, 'SPEI', 'BANK_TRANSFER', 'CASH', 'PSE'],
    capabilities: [...ACQUIRING, 'payout'],
    credits: { BANK_TRANSFER: ['MX'] },
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://documents.openpay.mx/en/api',
  },
  {
    code: 'CONEKTA', name: 'Conekta',
    regions: ['LATIN_AMERICA'],
    countries: ['MX'],
    currencies: ['MXN', 'USD'],
    paymentMethodTypes: [...CARDS, 'OXXO', 'SPEI', 'BANK_TRANSFER', 'CASH'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://developers.conekta.com/',
  },
  {
    code: 'PAGSEGURO', name: 'PagSeguro (PagBank)',
    regions: ['LATIN_AMERICA'],
    countries: ['BR'],
    currencies: ['BRL'],
    paymentMethodTypes: [...CARDS, 'PIX', 'BOLETO'],
    capabilities: [...ACQUIRING, 'split'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-3', docsUrl: 'https://dev.pagbank.uol.com.br/',
  },
  {
    code: 'CIELO', name: 'Cielo',
    regions: ['LATIN_AMERICA'],
    countries: ['BR'],
    currencies: ['BRL'],
    paymentMethodTypes: [...CARDS, 'PIX', 'BOLETO'],
    capabilities: ACQUIRING,
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-3', docsUrl: 'https://developercielo.github.io/en/manual/cielo-ecommerce',
  },
  {
    code: 'REDE', name: 'Rede (e.Rede)',
    regions: ['LATIN_AMERICA'],
    countries: ['BR'],
    currencies: ['BRL'],
    paymentMethodTypes: CARDS,
    capabilities: ACQUIRING,
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: null, docsUrl: 'https://developer.userede.com.br/e-rede',
  },
  {
    code: 'GETNET', name: 'Getnet',
    regions: ['LATIN_AMERICA'],
    countries: ['BR'],
    currencies: ['BRL'],
    paymentMethodTypes: [...CARDS, 'PIX', 'BOLETO'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: null, docsUrl: 'https://developers.getnet.com.br/',
  },
  {
    code: 'PAGARME', name: 'Pagar.me',
    regions: ['LATIN_AMERICA'],
    countries: ['BR'],
    currencies: ['BRL'],
    paymentMethodTypes: [...CARDS, 'PIX', 'BOLETO'],
    capabilities: ['authorize', 'capture', 'partial_capture', 'cancel', 'refund', 'partial_refund', 'split', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.pagar.me/',
  },
  {
    code: 'WOMPI', name: 'Wompi',
    regions: ['LATIN_AMERICA'],
    countries: ['CO'],
    currencies: ['COP'],
    paymentMethodTypes: [...CARDS, 'PSE', 'NEQUI', 'DAVIPLATA', 'BANK_TRANSFER', 'CASH'],
    // Card payments settle at once: no separate capture, voids instead of refunds.
    capabilities: ['authorize', 'cancel', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: 'alpha-2', docsUrl: 'https://docs.wompi.co/',
  },
  {
    code: 'EPAYCO', name: 'ePayco',
    regions: ['LATIN_AMERICA'],
    countries: ['CO'],
    currencies: ['COP', 'USD'],
    paymentMethodTypes: [...CARDS, 'PSE', 'EFECTY', 'CASH'],
    capabilities: ['authorize', 'refund', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://docs.epayco.com/',
  },
  {
    code: 'PLACETOPAY', name: 'Placetopay (Evertec)',
    regions: ['LATIN_AMERICA'],
    countries: ['CO', 'EC', 'CR', 'PA', 'PR'],
    currencies: ['COP', 'USD', 'CRC'],
    paymentMethodTypes: [...CARDS, 'PSE', 'CASH'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: 'alpha-2', docsUrl: 'https://docs.placetopay.dev/',
  },
  {
    code: 'PAYMENTEZ', name: 'Paymentez',
    regions: ['LATIN_AMERICA'],
    countries: ['CO', 'EC', 'MX', 'PE'],
    currencies: ['COP', 'USD', 'MXN', 'PEN'],
    paymentMethodTypes: [...CARDS, 'PSE', 'CASH', 'BANK_TRANSFER'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://paymentez.github.io/api-doc/',
  },
  {
    code: 'NIUBIZ', name: 'Niubiz',
    regions: ['LATIN_AMERICA'],
    countries: ['PE'],
    currencies: ['PEN', 'USD'],
    paymentMethodTypes: [...CARDS, 'YAPE', 'PAGOEFECTIVO'],
    capabilities: ['authorize', 'capture', 'cancel', 'refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://desarrolladores.niubiz.com.pe/',
  },
  {
    code: 'CULQI', name: 'Culqi',
    regions: ['LATIN_AMERICA'],
    countries: ['PE'],
    currencies: ['PEN', 'USD'],
    paymentMethodTypes: [...CARDS, 'YAPE', 'CASH'],
    capabilities: ['authorize', 'capture', 'refund', 'partial_refund', 'three_d_secure', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'minor', countryFormat: null, docsUrl: 'https://docs.culqi.com/',
  },
  {
    code: 'TRANSBANK', name: 'Transbank (Webpay)',
    regions: ['LATIN_AMERICA'],
    countries: ['CL'],
    currencies: ['CLP', 'USD'],
    paymentMethodTypes: [...CARDS, 'WEBPAY'],
    // Webpay authenticates the cardholder itself; deferred capture may take less than authorized.
    capabilities: ['authorize', 'capture', 'partial_capture', 'refund', 'partial_refund', 'tokenization'],
    credits: NO_CREDITS,
    amountUnit: 'major', countryFormat: null, docsUrl: 'https://www.transbankdevelopers.cl/',
  },
  // --- our own
  {
    code: 'SANDBOX', name: 'Switchyard sandbox acquirer',
    regions: [...REGIONS],
    countries: ISO_COUNTRY_CODES,
    currencies: ISO_CURRENCY_CODES,
    paymentMethodTypes: CARDS,
    capabilities: CAPABILITIES,
    // What the built-in gateway simulates: card credits anywhere, bank credits on ACH, SEPA
    // and five LATAM local rails, wallet credits in four LATAM countries.
    credits: { CARD: ISO_COUNTRY_CODES, BANK_TRANSFER: ['US', ...SEPA_COUNTRIES, 'BR', 'MX', 'CO', 'PE', 'CL'], WALLET: ['BR', 'MX', 'CO', 'AR'] },
    amountUnit: 'minor', countryFormat: null, docsUrl: '/docs',
    payloadMarkers: ['iso8583responsecode', 'capturedamount', 'softdescriptor'],
  },
];

/** The catalogue, sorted by code (README and OpenAPI order). */
export const PROVIDER_CATALOGUE: readonly ProviderEntry[] = [...ENTRIES].sort((a, b) => a.code.localeCompare(b.code));

export const PROVIDER_CODES: readonly string[] = PROVIDER_CATALOGUE.map((p) => p.code);

const BY_CODE = new Map(PROVIDER_CATALOGUE.map((p) => [p.code, p]));

export function providerEntry(code: string): ProviderEntry | undefined {
  return BY_CODE.get(code);
}

/** The provider whose API answers at this host (api.stripe.com, checkout-test.adyen.com...). */
export function providerByHost(host: string): ProviderEntry | undefined {
  const h = host.toLowerCase();
  return PROVIDER_CATALOGUE.find((p) => p.apiDomains?.some((d) => h === d || h.endsWith(`.${d}`)));
}

/**
 * The provider whose documented key names a payload carries: at least two of its markers and
 * more than any other provider's (a tie names none).
 */
export function providerByPayloadKeys(keys: ReadonlySet<string>): ProviderEntry | undefined {
  let best: ProviderEntry | undefined;
  let bestCount = 1;
  let tie = false;
  for (const entry of PROVIDER_CATALOGUE) {
    const count = entry.payloadMarkers?.filter((m) => keys.has(m)).length ?? 0;
    if (count > bestCount) [best, bestCount, tie] = [entry, count, false];
    else if (count === bestCount && best) tie = true;
  }
  return tie ? undefined : best;
}

export function isCatalogueProvider(code: string): boolean {
  return BY_CODE.has(code);
}

export function hasCapability(code: string, capability: Capability): boolean {
  return BY_CODE.get(code)?.capabilities.includes(capability) ?? false;
}

/** Capability a credit to this kind of destination needs. */
export function creditCapabilityOf(method: CreditMethod): Capability {
  return method === 'CARD' ? 'unreferenced_refund' : 'payout';
}

/** Whether the provider can push a credit of this kind to this country. */
export function supportsCredit(code: string, method: CreditMethod, country: string): boolean {
  const entry = BY_CODE.get(code);
  if (!entry || !entry.capabilities.includes(creditCapabilityOf(method))) return false;
  return entry.credits[method]?.includes(country) ?? false;
}

/** Providers that can push credits at all (spec: provider_data.id of a refund is one of 28 codes). */
export const CREDIT_PROVIDER_CODES: readonly string[] = PROVIDER_CATALOGUE.filter((p) => p.capabilities.includes('unreferenced_refund') || p.capabilities.includes('payout')).map((p) => p.code);

/** Whether the catalogue says the provider takes this method type in this country. */
export function providerTakes(code: string, paymentMethodType: string, country: string): boolean {
  const entry = BY_CODE.get(code);
  return !!entry && (entry.paymentMethodTypes as readonly string[]).includes(paymentMethodType) && entry.countries.includes(country);
}
