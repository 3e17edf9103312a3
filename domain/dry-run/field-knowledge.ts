/**
 * What the dry-run pipeline knows about provider payloads without a profile (generic mode),
 * as data and small pure functions: which key names carry which payment concept, how a
 * provider spells capture, card brands and outcomes, in which unit an amount travels, and
 * how close two references are. Profiles use the same vocabularies as a fallback.
 */
import { providerByHost, providerByPayloadKeys, providerEntry } from '../providers/catalogue';
import type { Concept } from './profiles';

const NORMALISED_KEYS = new Map<string, string>();

/**
 * A key name without case, separators or the XML attribute prefix. Memoised: a large body
 * repeats the same few key names thousands of times (bounded, so hostile key sets cannot grow it).
 */
export function normKey(key: string): string {
  let normalised = NORMALISED_KEYS.get(key);
  if (normalised === undefined) {
    normalised = key.replace(/^@_/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
    if (NORMALISED_KEYS.size >= 20_000) NORMALISED_KEYS.clear();
    NORMALISED_KEYS.set(key, normalised);
  }
  return normalised;
}

/** Provider key names (normalised; also parent + key, e.g. identification.number) per concept. */
export const KEY_SYNONYMS: Record<string, Concept> = {
  reference: 'merchant_reference', merchantreference: 'merchant_reference', orderid: 'merchant_reference', merchantorderid: 'merchant_reference', orderreference: 'merchant_reference',
  externalid: 'merchant_reference', externalreference: 'merchant_reference', referencecode: 'merchant_reference', invoicenumber: 'merchant_reference', invoiceid: 'merchant_reference',
  ordercode: 'merchant_reference', merchantorderreference: 'merchant_reference', merchanttransactionid: 'merchant_reference', referencesale: 'merchant_reference', ordernumber: 'merchant_reference',
  switchyardreference: 'merchant_reference', clientreference: 'merchant_reference', purchasenumber: 'merchant_reference', buyorder: 'merchant_reference',
  amount: 'amount', totalamount: 'amount', amountvalue: 'amount', amountinminor: 'amount', amountcents: 'amount', amountincents: 'amount', total: 'amount', value: 'amount',
  transactionamount: 'amount', authamount: 'amount', txvaluevalue: 'amount', totalcents: 'amount', amountminor: 'amount', minoramount: 'amount',
  currency: 'currency', currencycode: 'currency', currencyid: 'currency', isocurrencycode: 'currency', currencyisocode: 'currency',
  country: 'country', countrycode: 'country', billingcountry: 'country', paymentcountry: 'country',
  capture: 'capture', autocapture: 'capture', captureimmediately: 'capture', capturemethod: 'capture', capturemode: 'capture', manualcapture: 'capture', capturedelayhours: 'capture',
  transactiontype: 'capture', type: 'capture', intent: 'capture', paymentaction: 'capture', operationtype: 'capture', submitforsettlement: 'capture',
  installments: 'installments', installmentcount: 'installments', numberofinstallments: 'installments', installmentsnumber: 'installments', installmentsvalue: 'installments',
  cardnumber: 'card_number', pan: 'card_number', ccnumber: 'card_number', accountnumber: 'card_last4', maskedpan: 'card_last4', maskednumber: 'card_last4',
  last4: 'card_last4', lastfour: 'card_last4', last4digits: 'card_last4', cardlast4: 'card_last4', lastfourdigits: 'card_last4', cardsummary: 'card_last4',
  bin: 'card_bin', iin: 'card_bin', cardbin: 'card_bin', firstsixdigits: 'card_bin',
  brand: 'card_brand', cardbrand: 'card_brand', scheme: 'card_brand', network: 'card_brand', paymentmethod: 'card_brand', paymentmethodid: 'card_brand',
  accounttype: 'card_brand', franchise: 'card_brand', paymentmethodname: 'card_brand', cardtype: 'card_brand', paymentmethodbrand: 'card_brand', cardscheme: 'card_brand',
  email: 'email', emailaddress: 'email',
  firstname: 'first_name', givenname: 'first_name',
  lastname: 'last_name', surname: 'last_name', familyname: 'last_name',
  documentnumber: 'document_number', taxid: 'document_number', nationalid: 'document_number', document: 'document_number', identificationnumber: 'document_number',
  dninumber: 'document_number', socialsecuritynumber: 'document_number', cpf: 'document_number', documentid: 'document_number', taxidentificationnumber: 'document_number',
  payerdocument: 'document_number',
  dateofbirth: 'date_of_birth', birthdate: 'date_of_birth', dob: 'date_of_birth',
  description: 'description', orderdescription: 'description',
};

/** The concept a provider leaf carries by its key (and its parent's key), or null. */
const CONCEPT_CACHE = new Map<string | null, Map<string, Concept | null>>();
let cachedConcepts = 0;

export function conceptOfKey(key: string, parent: string | null): Concept | null {
  let byKey = CONCEPT_CACHE.get(parent);
  const cached = byKey?.get(key);
  if (cached !== undefined) return cached;
  const concept = conceptOfKeyUncached(key, parent);
  if (++cachedConcepts > 20_000) {
    CONCEPT_CACHE.clear();
    cachedConcepts = 0;
    byKey = undefined;
  }
  if (!byKey) CONCEPT_CACHE.set(parent, (byKey = new Map()));
  byKey.set(key, concept);
  return concept;
}

function conceptOfKeyUncached(key: string, parent: string | null): Concept | null {
  const k = normKey(key);
  const composite = parent ? KEY_SYNONYMS[normKey(parent) + k] : undefined;
  if (composite) return composite;
  if (k === 'value' || k === 'total') {
    // "value" / "total" only mean an amount inside an amount-ish object or at the top.
    return !parent || /amount|total|value$|price/i.test(parent) ? 'amount' : null;
  }
  if (k.endsWith('email') && k !== 'email') return 'email';
  // A switch inside a capture object ({autoCapture: {enabled: true}}) is the capture flag.
  if (parent && SWITCH_KEYS.has(k) && captureKeyKind(normKey(parent)) === 'flag') return 'capture';
  return KEY_SYNONYMS[k] ?? (captureKeyKind(k) ? 'capture' : null);
}

/** Keys that only switch their parent on or off. */
export const SWITCH_KEYS = new Set(['enabled', 'active', 'on']);

/**
 * How a (normalised) key name speaks of capture: a flag (true: capture now), a manual flag
 * (true: authorize only), a delay, a method or mode word, or a transaction type word (sale,
 * auth...). The kinds before type name capture explicitly: they outrank a type when both occur.
 */
export type CaptureKeyKind = 'flag' | 'manual' | 'delay' | 'method' | 'type';

export function captureKeyKind(k: string): CaptureKeyKind | null {
  if (/^(request)?(auto|immediate|instant)?(capture|settle|settlement)(now|immediately)?$|^submitforsettlement$/.test(k)) return 'flag';
  if (/^(manual|delayed|deferred)capture$|^auth(ori[sz]e)?only$/.test(k)) return 'manual';
  if (/^capturedelay(hours|days)?$/.test(k)) return 'delay';
  if (k === 'capturemethod' || k === 'capturemode') return 'method';
  if (['transactiontype', 'type', 'intent', 'paymentaction', 'operationtype'].includes(k)) return 'type';
  return null;
}

export const ERROR_KEYS = new Set(['error', 'errors', 'errorcode', 'errormessage', 'declinecode', 'failurecode', 'failuremessage', 'lastpaymenterror', 'refusalreason', 'errortext']);

// ---------------------------------------------------------------- cards

const BRAND_SYNONYMS: Record<string, string> = {
  visa: 'VISA', vi: 'VISA', visacredit: 'VISA', visadebit: 'VISA', electron: 'VISA', debvisa: 'VISA',
  mastercard: 'MASTERCARD', master: 'MASTERCARD', mc: 'MASTERCARD', mastercardcredit: 'MASTERCARD', mastercarddebit: 'MASTERCARD', debmaster: 'MASTERCARD',
  amex: 'AMERICAN_EXPRESS', americanexpress: 'AMERICAN_EXPRESS', am: 'AMERICAN_EXPRESS', ax: 'AMERICAN_EXPRESS',
  jcb: 'JCB', diners: 'DINERS', dinersclub: 'DINERS', dc: 'DINERS', discover: 'DISCOVER', elo: 'ELO', el: 'ELO', hipercard: 'HIPERCARD', hc: 'HIPERCARD',
  unionpay: 'UNIONPAY', cup: 'UNIONPAY', maestro: 'MAESTRO', cabal: 'CABAL',
};

/** A card brand in Switchyard's vocabulary (VISA, MASTERCARD...), or null when not a brand. */
export function normBrand(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return BRAND_SYNONYMS[normKey(value)] ?? null;
}

/** Last four digits of a last-4 or masked number field ("1111", "XXXX1111", "************1111"). */
export function lastFourOf(value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const s = String(value).trim();
  if (!/^[Xx*•#.\s\d-]*\d{4}$/.test(s)) return null;
  return s.replace(/\D/g, '').slice(-4);
}

// ---------------------------------------------------------------- capture

/** What a provider capture field says: true (authorize and capture), false (authorize only), null (not a capture value). */
export function captureMeaning(key: string, value: unknown): boolean | null {
  const k = normKey(key);
  const text = typeof value === 'boolean' ? String(value) : typeof value === 'string' || typeof value === 'number' ? normKey(String(value)) : null;
  if (text === null) return null;
  const bool = text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : null;
  const kind = captureKeyKind(k);
  if (kind === 'flag') return bool;
  if (kind === 'manual') return bool === null ? null : !bool;
  // A capture delay (in hours or days) is still an automatic capture.
  if (kind === 'delay' && /^\d+$/.test(text)) return true;
  if (kind === 'method') {
    if (/^(automatic|automaticasync|auto|immediate|instant)$/.test(text)) return true;
    if (/^(manual|delayed|deferred|later)$/.test(text)) return false;
    return null;
  }
  if (/^(authcapture|authcapturetransaction|authorizationandcapture|authorisationandcapture|authorizeandcapture|authandcapture|sale|purchase|capture|directsale)$/.test(text)) return true;
  if (/^(auth|authonly|authonlytransaction|authorization|authorize|preauth|preauthorization|preauthorisation|authorisation|authorise)$/.test(text)) return false;
  return null;
}

// ---------------------------------------------------------------- outcomes

export type StatusClass = 'APPROVED' | 'DECLINED' | 'PENDING' | 'CANCELLED';

const STATUS_WORDS: Record<string, StatusClass> = {
  approved: 'APPROVED', authorized: 'APPROVED', authorised: 'APPROVED', captured: 'APPROVED', succeeded: 'APPROVED', success: 'APPROVED', successful: 'APPROVED', paid: 'APPROVED',
  settled: 'APPROVED', completed: 'APPROVED', ok: 'APPROVED', accredited: 'APPROVED', requirescapture: 'APPROVED',
  // settlement stages of an approved payment (Braintree, Worldpay)
  settling: 'APPROVED', settlementpending: 'APPROVED', submittedforsettlement: 'APPROVED', sentforsettlement: 'APPROVED',
  declined: 'DECLINED', refused: 'DECLINED', failed: 'DECLINED', failure: 'DECLINED', rejected: 'DECLINED', denied: 'DECLINED', error: 'DECLINED', decline: 'DECLINED', fail: 'DECLINED',
  pending: 'PENDING', processing: 'PENDING', inprogress: 'PENDING', inprocess: 'PENDING', created: 'PENDING', requiresaction: 'PENDING', waiting: 'PENDING', received: 'PENDING',
  redirectshopper: 'PENDING', identifyshopper: 'PENDING', challengeshopper: 'PENDING', authenticationrequired: 'PENDING', heldforreview: 'PENDING',
  cancelled: 'CANCELLED', canceled: 'CANCELLED', voided: 'CANCELLED', expired: 'CANCELLED',
};
const DECLINE_WORD = /^(declined?|refused|failed|failure|rejected|denied|error|insufficient)$/;
const APPROVE_WORD = /^(approved|authori[sz]ed|captured|succeeded|success|paid|completed)$/;

/** Key names that carry a payment outcome, by how much they say (first: the status itself). */
export const STATUS_KEYS = new Set(['status', 'state', 'resultcode', 'result', 'outcome', 'transactionstatus', 'paymentstatus', 'statepol', 'responsecode', 'transactionstate', 'lastevent']);
export const FLAG_KEYS = new Set(['approved', 'success', 'successful', 'paid', 'issuccess']);
export const EVENT_KEYS = new Set(['type', 'eventtype', 'eventcode', 'event', 'topic', 'action', 'eventname', 'kind']);

/** Numeric outcome codes that are documented per key name (e.g. Authorize.net responseCode, PayU state_pol). */
const CODE_VOCABULARIES: Record<string, Record<string, StatusClass>> = {
  responsecode: { 1: 'APPROVED', 2: 'DECLINED', 3: 'DECLINED', 4: 'PENDING' },
  statepol: { 4: 'APPROVED', 6: 'DECLINED', 104: 'DECLINED', 5: 'CANCELLED', 7: 'PENDING' },
};

/** Classifies a status value (single word, code or event name such as payment_intent.payment_failed). */
export function classifyStatus(key: string, value: unknown, kind: 'status' | 'flag' | 'event'): StatusClass | null {
  if (value === null || value === undefined || typeof value === 'object') return null;
  const text = String(value);
  const k = normKey(key);
  if (kind === 'flag') {
    const t = text.toLowerCase();
    return t === 'true' ? 'APPROVED' : t === 'false' ? 'DECLINED' : null;
  }
  if (/^\d+$/.test(text)) {
    const vocab = CODE_VOCABULARIES[k];
    // Five-digit acquirer response codes: 10000-series approved, 20000+ declined (Checkout.com style).
    if (k === 'responsecode' && /^\d{5}$/.test(text)) return text.startsWith('1') ? 'APPROVED' : 'DECLINED';
    return vocab?.[text] ?? null;
  }
  const whole = STATUS_WORDS[normKey(text)];
  if (kind === 'status' && whole) return whole;
  const words = text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (words.some((w) => DECLINE_WORD.test(w))) return 'DECLINED';
  if (words.some((w) => w === 'canceled' || w === 'cancelled' || w === 'voided' || w === 'expired')) return 'CANCELLED';
  if (words.some((w) => APPROVE_WORD.test(w))) return 'APPROVED';
  return null;
}

// ---------------------------------------------------------------- amounts

export type AmountUnit = 'minor' | 'major';

/**
 * The catalogue provider of a registration: its provider_id, else the host of its request,
 * else the provider whose documented key names the payload carries (traffic behind a proxy).
 */
export function knownProvider(providerId: string | null | undefined, baseUrl: string | null | undefined, payloadKeys: ReadonlySet<string> = new Set()): string | null {
  if (providerId && providerEntry(providerId)) return providerId;
  let byHost: string | null = null;
  try {
    byHost = baseUrl ? providerByHost(new URL(baseUrl).hostname)?.code ?? null : null;
  } catch {
    byHost = null;
  }
  return byHost ?? providerByPayloadKeys(payloadKeys)?.code ?? null;
}

/** Keys naming an amount of money, whatever else they say (net_received_amount, unit_price). */
export function isAmountName(key: string): boolean {
  return /(amount|total|price)$/.test(normKey(key));
}

/** Keys that give the decimal exponent of a sibling minor-unit amount (Worldpay's exponent="2"). */
export const EXPONENT_KEYS = new Set(['exponent', 'currencyexponent', 'minorunits', 'decimalplaces']);

/**
 * The unit of a provider amount without a profile: the catalogue's (provider known by id or
 * host), else the field name (cents, minor), else the value's form: a decimal is major, and
 * so is every amount of an exchange whose amounts are written as decimals anywhere (one
 * provider, one unit); a JSON integer is minor; null when nothing tells (a bare integer string).
 */
export function amountUnitOf(provider: string | null, path: string, value: unknown, exchangeIsDecimal = false): AmountUnit | null {
  const entry = provider ? providerEntry(provider) : undefined;
  if (entry) return entry.amountUnit;
  const name = normKey(path);
  if (/cents|minor|smallest|subunit/.test(name)) return 'minor';
  if (/decimal|major|transactionamount|txvalue|authamount/.test(name)) return 'major';
  if (isDecimal(value) || exchangeIsDecimal) return 'major';
  if (typeof value === 'number') return 'minor';
  return null;
}

/** A decimal amount (150.5, "150.50"): only major units have a fractional part. */
export function isDecimal(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Number.isInteger(value);
  return typeof value === 'string' && /^\s*-?\d+\.\d+\s*$/.test(value);
}

// ---------------------------------------------------------------- near matches

/** Damerau-Levenshtein distance (adjacent transpositions count 1), capped for long strings. */
export function editDistance(a: string, b: string, cap = 3): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Two references that differ by a typo or transposed characters (not identical, not unrelated). */
export function nearMatch(a: string, b: string): boolean {
  const x = a.trim().toLowerCase();
  const y = b.trim().toLowerCase();
  if (x === y || x.length < 5 || y.length < 5) return false;
  return editDistance(x, y, 2) <= (Math.min(x.length, y.length) >= 8 ? 2 : 1);
}
