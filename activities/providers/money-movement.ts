/**
 * Money-out operations of a provider (credits, recipient onboarding, transfers), beside
 * the charge-side ProviderConnector. Answers are mapped by that connector's mapResponse,
 * so categories, ISO 8583 codes and raw responses mean the same on both sides.
 */
import { toCurrencyMinor } from '../../domain/money';
import type { CardForProvider, ConnectionTarget, HttpConnector, ProviderHttpRequest } from './connector';
import { sandboxConnector } from './sandbox';

export type CreditDestination =
  | { type: 'CARD'; card: CardForProvider }
  | { type: 'BANK_TRANSFER'; bank: { account: string | null; provider_token: string | null; bank_id: string | null; account_type: string; beneficiary_name: string; beneficiary_type: string | null; document: { document_type: string; document_number: string } | null } }
  | { type: 'WALLET'; wallet: { payment_token: string } };

export interface CreditRequest {
  idempotencyKey: string;
  reference: string;
  amount: number;
  currency: string;
  description: string;
  softDescriptor: string | null;
  destination: CreditDestination;
}

export interface RecipientOnboardingRequest {
  idempotencyKey: string;
  reference: string;
  existingRecipientId: string | null;
  legalEntity: { type: string; name: string; country: string };
  documentCategories: string[];
  termsAccepted: boolean;
  bank: Record<string, string | null> | null;
}

export interface TransferRequest {
  idempotencyKey: string;
  reference: string;
  providerRecipientId: string;
  amount: number;
  currency: string;
  description: string;
}

export interface MoneyMovementConnector {
  readonly charges: HttpConnector;
  buildCredit(target: ConnectionTarget, request: CreditRequest): ProviderHttpRequest;
  buildRecipientOnboarding(target: ConnectionTarget, request: RecipientOnboardingRequest): ProviderHttpRequest;
  buildTransfer(target: ConnectionTarget, request: TransferRequest): ProviderHttpRequest;
}

function minor(amount: number, currency: string): number {
  const value = toCurrencyMinor(amount, currency);
  if (value === null) throw new Error(`${amount} has more decimals than ${currency} allows`);
  return Number(value);
}

const headers = (target: ConnectionTarget, key: string) => ({ 'x-merchant-id': target.merchantId, 'idempotency-key': key });

const sandboxMoneyMovement: MoneyMovementConnector = {
  charges: sandboxConnector,
  buildCredit(target, r) {
    const d = r.destination;
    const destination =
      d.type === 'CARD'
        ? { type: 'CARD', card: { number: d.card.number, holder_name: d.card.holderName, exp_month: d.card.expirationMonth, exp_year: d.card.expirationYear } }
        : d.type === 'BANK_TRANSFER'
          ? { type: 'BANK_TRANSFER', bank: d.bank }
          : { type: 'WALLET', wallet: d.wallet };
    return {
      method: 'POST', path: '/v1/credits', headers: headers(target, r.idempotencyKey),
      body: { amount: minor(r.amount, r.currency), currency: r.currency, reference: r.reference, description: r.description, soft_descriptor: r.softDescriptor, destination },
    };
  },
  buildRecipientOnboarding(target, r) {
    return {
      method: 'POST', path: '/v1/recipients', headers: headers(target, r.idempotencyKey),
      body: { reference: r.reference, existing_recipient_id: r.existingRecipientId, legal_entity: r.legalEntity, documents: r.documentCategories.map((category) => ({ category })), terms_accepted: r.termsAccepted, bank: r.bank },
    };
  },
  buildTransfer(target, r) {
    return {
      method: 'POST', path: '/v1/transfers', headers: headers(target, r.idempotencyKey),
      body: { amount: minor(r.amount, r.currency), currency: r.currency, recipient: r.providerRecipientId, reference: r.reference, description: r.description },
    };
  },
};

const CONNECTORS: Record<string, MoneyMovementConnector> = { SANDBOX: sandboxMoneyMovement };

/** Whether credits, onboardings and transfers can be sent to this provider. */
export function hasMoneyMovementConnector(providerId: string): boolean {
  return Object.hasOwn(CONNECTORS, providerId);
}

export function moneyMovementConnectorFor(providerId: string): MoneyMovementConnector {
  const connector = CONNECTORS[providerId];
  if (!connector) throw new Error(`no money-movement connector for provider ${providerId}`);
  return connector;
}
