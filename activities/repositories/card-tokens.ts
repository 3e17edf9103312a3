/**
 * One-time card tokens: the checkout (or a merchant's PCI-scoped form) exchanges card data
 * for a token that one payment may use within its lifetime. The card is vaulted at once;
 * the token only points at it. Single use is enforced by inserting the token id into
 * `card_token_uses` (a unique _id: atomic on MongoDB and FerretDB alike).
 */
import { findByIdWithin } from '../runtime/mongo';
import type { Db } from 'mongodb';
import type { Keyring } from '../../domain/crypto';
import { randomBytes } from 'node:crypto';
import type { InlineCard } from '../../domain/payments/codecs';
import type { CardSummary } from '../../domain/payments/record';
import { storeSecurityCode, vaultCard } from './vault';

export const CARD_TOKEN_TTL_MS = 15 * 60 * 1000;

interface CardTokenDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  card_id: string;
  created_at: Date;
  expires_at: Date;
}

export async function createCardToken(db: Db, keyring: Keyring, owner: { organizationCode: string; accountId: string }, card: InlineCard): Promise<{ token: string; expiresAt: Date; summary: CardSummary }> {
  const { cardId, summary } = await vaultCard(db, keyring, owner, card);
  const token = `tok_${randomBytes(24).toString('base64url')}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + CARD_TOKEN_TTL_MS);
  await db.collection<CardTokenDoc>('card_tokens').insertOne({ _id: token, organization_code: owner.organizationCode, account_id: owner.accountId, card_id: cardId, created_at: now, expires_at: expiresAt });
  // The CVV given with the token is kept (sealed) under the token until a payment claims it.
  if (card.security_code) await storeSecurityCode(db, keyring, token, card.security_code);
  return { token, expiresAt, summary };
}

/** Claims the token for `paymentId`; the card id, or null when unknown, expired or used. */
export async function consumeCardToken(db: Db, organizationCode: string, accountId: string, token: string, paymentId: string): Promise<string | null> {
  const doc = await findByIdWithin(db.collection<CardTokenDoc>('card_tokens'), token, { organization_code: organizationCode, account_id: accountId });
  if (!doc || doc.expires_at.getTime() <= Date.now()) return null;
  try {
    await db.collection('card_token_uses').insertOne({ _id: token as never, payment_id: paymentId, expires_at: doc.expires_at });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    const use = await db.collection('card_token_uses').findOne({ _id: token as never });
    return use?.payment_id === paymentId ? doc.card_id : null; // the same payment retried may claim again
  }
  return doc.card_id;
}
