/**
 * Marketplace recipients (payees) and their onboarding at a provider: request codecs,
 * cross-field rules, records and rendering.
 *
 * Onboarding types: PREVIOUSLY_ONBOARDED (the recipient already exists at the provider;
 * provider.recipient_id links it) and NEW (Switchyard registers it with the provider).
 * Workflow: DIRECT (everything is sent server to server in this call).
 *
 * Onboarding lifecycle:
 * | from    | event                                               | to             |
 * |---------|-----------------------------------------------------|----------------|
 * | (none)  | request accepted                                    | CREATED        |
 * | CREATED | provider activates the recipient                    | SUCCEEDED      |
 * | CREATED | provider needs more (e.g. an identification document) | PENDING_REVIEW |
 * | CREATED | provider rejects (terms not accepted) or keeps failing | FAILED        |
 * SUCCEEDED and FAILED are final; a recipient with a SUCCEEDED onboarding can receive transfers.
 */
import * as t from 'io-ts';
import {
  annotate, boundedArray, boundedString, CountryCode, CurrencyCode, DateOnly, enumOf, HttpsUrl, maxString, nullable, refined, struct, Timestamp, Uuid,
} from '../codecs/common';
import type { FieldError } from '../errors';
import { Document } from '../payments/codecs';
import { PROVIDER_IDS } from '../payments/routing';
import { PROVIDER_CATALOGUE } from '../providers/catalogue';
import { ConnectionId, ConnectionIdView } from '../payments/connections';
import { SecureCallbackUrl } from '../money-movement/common';

export const NATIONAL_ENTITIES = ['INDIVIDUAL', 'ENTITY'] as const;
export const ENTITY_TYPES = ['PRIVATE', 'PUBLIC', 'NON_PROFIT', 'GOVERNMENT'] as const;
export const ONBOARDING_TYPES = ['PREVIOUSLY_ONBOARDED', 'NEW'] as const;
export const ONBOARDING_WORKFLOWS = ['DIRECT'] as const;
export const RECIPIENT_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;
export const CONTENT_CATEGORIES = ['IDENTIFICATION_DOCUMENT', 'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'ARTICLES_OF_INCORPORATION', 'TAX_DOCUMENT', 'OTHER'] as const;
export const CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export const WITHDRAWAL_ACCOUNT_TYPES = ['CHECKINGS', 'SAVINGS'] as const;
export const ONBOARDING_STATUSES = ['CREATED', 'SUCCEEDED', 'PENDING_REVIEW', 'FAILED'] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

/** Largest decoded document accepted (bytes). */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

const Base64Content = refined(
  'Base64Content',
  t.string,
  (s) => s.length > 0 && s.length <= Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s),
  `must be base64 of at most ${MAX_DOCUMENT_BYTES} bytes`,
  { type: 'string', format: 'byte', maxLength: Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4 },
);

export const DocumentationInput = struct(
  'DocumentationInput',
  { file_name: boundedString(1, 255), content_type: enumOf('ContentType', CONTENT_TYPES), content_category: enumOf('ContentCategory', CONTENT_CATEGORIES), content: annotate(Base64Content, { writeOnly: true, description: 'the file, base64; stored sealed and answered as a reference (doc_...)' }) },
  {},
);

const PhoneInput = struct('RecipientPhone', { number: refined('PhoneNumber', t.string, (s) => /^\d{4,20}$/.test(s), 'must be 4 to 20 digits', { type: 'string', pattern: '^\\d{4,20}$' }) }, {
  country_code: refined('PhoneCountryCode', t.string, (s) => /^\d{1,4}$/.test(s), 'must be 1 to 4 digits', { type: 'string', pattern: '^\\d{1,4}$' }),
});

const AddressInput = struct('RecipientAddress', {}, {
  address_line_1: nullable(maxString(255)),
  address_line_2: nullable(maxString(255)),
  city: nullable(maxString(255)),
  country: nullable(CountryCode),
  state: nullable(maxString(255)),
  zip_code: nullable(maxString(32)),
  neighborhood: nullable(maxString(255)),
});

export const LegalRepresentativeInput = struct('LegalRepresentative', { first_name: boundedString(1, 255), last_name: boundedString(1, 255) }, {
  merchant_reference: boundedString(3, 255),
  email: boundedString(3, 255),
  date_of_birth: DateOnly,
  country: CountryCode,
  nationality: CountryCode,
  title: maxString(255),
  publicly_exposed_person: t.boolean,
  ultimate_beneficial_owner: t.boolean,
  document: Document,
  phone: PhoneInput,
  address: AddressInput,
});

const BankCode = (name: string, max: number, description: string) => annotate(boundedString(1, max, name), { description });

export const BankWithdrawalInput = struct(
  'BankWithdrawal',
  {
    code: BankCode('BankCode', 20, 'bank code (e.g. 341)'),
    branch: BankCode('Branch', 20, 'branch; "1234-5" carries the branch check digit'),
    account: BankCode('Account', 34, 'account number; "12345-6" carries the account check digit'),
    account_type: enumOf('WithdrawalAccountType', WITHDRAWAL_ACCOUNT_TYPES),
    country: CountryCode,
    currency: CurrencyCode,
  },
  { routing: BankCode('Routing', 20, 'routing / clearing number where the rail uses one'), branch_digit: maxString(2), account_digit: maxString(2) },
);

export const WithdrawalMethodsInput = struct('WithdrawalMethods', {}, { bank: BankWithdrawalInput });

export const RecipientCreateRequest = struct(
  'RecipientCreateRequest',
  {
    account_id: Uuid,
    merchant_recipient_id: annotate(boundedString(3, 255), { description: 'the merchant\'s own id of the recipient; unique per account (409 otherwise)' }),
    national_entity: annotate(enumOf('NationalEntity', NATIONAL_ENTITIES), { description: 'INDIVIDUAL needs first_name and last_name; ENTITY needs legal_name' }),
    country: CountryCode,
  },
  {
    entity_type: enumOf('EntityType', ENTITY_TYPES),
    first_name: boundedString(1, 255),
    last_name: boundedString(1, 255),
    legal_name: boundedString(1, 255),
    email: boundedString(3, 255),
    date_of_birth: DateOnly,
    website: HttpsUrl,
    industry: maxString(255),
    merchant_category_code: refined('MerchantCategoryCode', t.string, (s) => /^\d{4}$/.test(s), 'must be 4 digits', { type: 'string', pattern: '^\\d{4}$' }),
    document: Document,
    phone: PhoneInput,
    address: AddressInput,
    legal_representatives: boundedArray(LegalRepresentativeInput, 0, 10),
    withdrawal_methods: WithdrawalMethodsInput,
    documentation: boundedArray(DocumentationInput, 0, 10),
  },
);
export type RecipientCreateRequest = t.TypeOf<typeof RecipientCreateRequest>;

export function recipientProblems(r: RecipientCreateRequest): FieldError[] {
  const problems: FieldError[] = [];
  if (r.national_entity === 'INDIVIDUAL') {
    for (const field of ['first_name', 'last_name'] as const) if (!r[field]) problems.push({ field, code: 'REQUIRED', message: `${field} is required for an INDIVIDUAL recipient` });
  } else if (!r.legal_name) problems.push({ field: 'legal_name', code: 'REQUIRED', message: 'legal_name is required for an ENTITY recipient' });
  return problems;
}

/** Providers that onboard marketplace recipients and pay them split transfers. */
export const SPLIT_PROVIDER_CODES: readonly string[] = PROVIDER_CATALOGUE.filter((p) => p.capabilities.includes('split')).map((p) => p.code);

export const OnboardingCreateRequest = struct(
  'OnboardingCreateRequest',
  {
    account_id: Uuid,
    type: annotate(enumOf('OnboardingType', ONBOARDING_TYPES), { description: 'PREVIOUSLY_ONBOARDED: link a recipient that exists at the provider (provider.recipient_id required); NEW: register it there' }),
    provider: struct('OnboardingProviderInput', {
      id: annotate(enumOf('ProviderId', PROVIDER_IDS), { description: `a provider catalogue code with the split capability (${SPLIT_PROVIDER_CODES.join(', ')}); another answers 422 SPLIT_NOT_SUPPORTED` }),
    }, {
      connection_id: annotate(ConnectionId, { description: 'a connection of the account with this provider, as provider.connection_id answers it; default: its first' }),
      recipient_id: annotate(boundedString(1, 255), { description: 'the recipient\'s id at the provider (PREVIOUSLY_ONBOARDED)' }),
      recipient_type: enumOf('RecipientType', RECIPIENT_TYPES),
    }),
    terms_of_service: struct('TermsOfService', { acceptance: t.boolean, date: Timestamp }, { ip: maxString(45) }),
  },
  {
    workflow: annotate(enumOf('OnboardingWorkflow', ONBOARDING_WORKFLOWS), { description: 'default DIRECT' }),
    callback_url: SecureCallbackUrl,
    documentation: boundedArray(DocumentationInput, 0, 10),
    legal_representatives: boundedArray(LegalRepresentativeInput, 0, 10),
    withdrawal_methods: WithdrawalMethodsInput,
  },
);
export type OnboardingCreateRequest = t.TypeOf<typeof OnboardingCreateRequest>;

export function onboardingProblems(r: OnboardingCreateRequest): FieldError[] {
  if (r.type === 'PREVIOUSLY_ONBOARDED' && !r.provider.recipient_id) {
    return [{ field: 'provider.recipient_id', code: 'REQUIRED', message: 'provider.recipient_id is required for PREVIOUSLY_ONBOARDED' }];
  }
  return [];
}

// ---- records and rendering ----------------------------------------------------------------

export interface StoredDocumentRef {
  file_name: string;
  content_type: string;
  content_category: string;
  /** Reference of the sealed file (doc_<uuid>). */
  content: string;
}

export interface BankWithdrawal {
  code: string;
  branch: string;
  branch_digit: string | null;
  account: string;
  account_digit: string | null;
  account_type: string;
  routing: string | null;
  country: string;
  currency: string;
}

/** Splits "1234-5" into number and check digit (explicit *_digit fields win). */
export function bankWithdrawalOf(input: t.TypeOf<typeof BankWithdrawalInput>): BankWithdrawal {
  const split = (value: string, explicit: string | undefined): [string, string | null] => {
    const match = /^(.+)-([0-9A-Za-z]{1,2})$/.exec(value);
    if (explicit !== undefined) return [match ? match[1] : value, explicit];
    return match ? [match[1], match[2]] : [value, null];
  };
  const [branch, branch_digit] = split(input.branch, input.branch_digit);
  const [account, account_digit] = split(input.account, input.account_digit);
  return { code: input.code, branch, branch_digit, account, account_digit, account_type: input.account_type, routing: input.routing ?? null, country: input.country, currency: input.currency };
}

export type LegalRepresentative = t.TypeOf<typeof LegalRepresentativeInput>;

export interface RecipientRecord {
  id: string;
  organization_code: string;
  account_id: string;
  merchant_recipient_id: string;
  national_entity: string;
  entity_type: string | null;
  first_name: string | null;
  last_name: string | null;
  legal_name: string | null;
  email: string | null;
  date_of_birth: string | null;
  country: string;
  website: string | null;
  industry: string | null;
  merchant_category_code: string | null;
  document: { document_type: string; document_number: string } | null;
  phone: { country_code: string | null; number: string } | null;
  address: Record<string, string | null> | null;
  legal_representatives: LegalRepresentative[];
  withdrawal_methods: { bank: BankWithdrawal | null };
  documentation: StoredDocumentRef[];
  created_at: string;
  updated_at: string;
}

export function renderRecipient(r: RecipientRecord) {
  const { organization_code: _org, ...rest } = r;
  return rest;
}

const str = nullable(t.string);
const DocumentRefView = t.type({ file_name: t.string, content_type: t.string, content_category: t.string, content: annotate(t.string, { description: 'reference of the stored file' }) });
const BankView = t.type({ code: t.string, branch: t.string, branch_digit: str, account: t.string, account_digit: str, account_type: t.string, routing: str, country: t.string, currency: t.string });

export const Recipient = t.type(
  {
    id: Uuid, account_id: Uuid, merchant_recipient_id: t.string, national_entity: t.string, entity_type: str, first_name: str, last_name: str, legal_name: str, email: str,
    date_of_birth: str, country: t.string, website: str, industry: str, merchant_category_code: str, document: nullable(t.UnknownRecord), phone: nullable(t.UnknownRecord),
    address: nullable(t.UnknownRecord), legal_representatives: t.array(t.UnknownRecord), withdrawal_methods: t.type({ bank: nullable(BankView) }), documentation: t.array(DocumentRefView),
    created_at: t.string, updated_at: t.string,
  },
  'Recipient',
);

export interface OnboardingSnapshot {
  status: OnboardingStatus;
  requirements: Array<{ code: string; message: string }>;
  provider: OnboardingRecord['provider'];
  created_at: string;
  updated_at: string;
}

export interface OnboardingRecord {
  id: string;
  version: number;
  organization_code: string;
  account_id: string;
  recipient_id: string;
  type: string;
  workflow: string;
  status: OnboardingStatus;
  callback_url: string | null;
  provider: { id: string; connection_id: string; recipient_id: string | null; recipient_type: string | null; redirect_url: string | null; onboarding_url: string | null; legal_entity: Record<string, unknown> | null };
  merchant_id: string;
  documentation: StoredDocumentRef[];
  legal_representatives: LegalRepresentative[];
  requirements: Array<{ code: string; message: string }>;
  withdrawal_methods: { bank: BankWithdrawal | null };
  terms_of_service: { acceptance: boolean; date: string; ip: string | null };
  recipient: ReturnType<typeof renderRecipient>;
  history: OnboardingSnapshot[];
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** A new version with `changes`; a status change also appends a history snapshot. */
export function withOnboardingChanges(record: OnboardingRecord, changes: Partial<OnboardingRecord>, at: string): OnboardingRecord {
  const next = { ...record, ...changes, version: record.version + 1, updated_at: at };
  if (changes.status && changes.status !== record.status) {
    next.history = [...record.history, { status: next.status, requirements: next.requirements, provider: next.provider, created_at: at, updated_at: at }];
  }
  return next;
}

export const Onboarding = t.type(
  {
    id: Uuid,
    type: t.string,
    workflow: t.string,
    status: annotate(enumOf('OnboardingStatus', ONBOARDING_STATUSES), { description: 'CREATED, then SUCCEEDED, PENDING_REVIEW or FAILED' }),
    callback_url: str,
    provider: t.type({ id: t.string, connection_id: ConnectionIdView, recipient_id: str, redirect_url: str, onboarding_url: str, legal_entity: nullable(t.UnknownRecord) }),
    documentation: t.array(DocumentRefView),
    legal_representatives: t.array(t.UnknownRecord),
    requirements: t.array(t.type({ code: t.string, message: t.string })),
    withdrawal_methods: t.type({ bank: nullable(BankView) }),
    terms_of_service: t.type({ acceptance: t.boolean, date: t.string, ip: str }),
    recipient: Recipient,
    history: annotate(t.array(t.type({ status: t.string, requirements: t.array(t.UnknownRecord), provider: t.UnknownRecord, created_at: t.string, updated_at: t.string })), { description: 'a snapshot per status the onboarding went through, oldest first' }),
    created_at: t.string,
    updated_at: t.string,
  },
  'Onboarding',
);

export function renderOnboarding(r: OnboardingRecord) {
  return {
    id: r.id,
    type: r.type,
    workflow: r.workflow,
    status: r.status,
    callback_url: r.callback_url,
    provider: { id: r.provider.id, connection_id: r.provider.connection_id, recipient_id: r.provider.recipient_id, redirect_url: r.provider.redirect_url, onboarding_url: r.provider.onboarding_url, legal_entity: r.provider.legal_entity },
    documentation: r.documentation,
    legal_representatives: r.legal_representatives,
    requirements: r.requirements,
    withdrawal_methods: r.withdrawal_methods,
    terms_of_service: r.terms_of_service,
    recipient: r.recipient,
    history: r.history,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
