/**
 * The card vault. A PAN is stored only sealed (AES-256-GCM under the vault subkey, the
 * master key id kept beside it so keys can rotate) with a keyed fingerprint (HMAC) that
 * recognises the same card without decrypting. A CVV is stored sealed only between the
 * request and the authorization that uses it, then deleted (and purged by expiry if the
 * authorization never happens): beside its card when the card came with the payment (one
 * write and one read less on the payment path), else under the token or payment it serves.
 */
import type { Db } from 'mongodb';
import { keyedHash, Keyring, openString, sealString } from '../../domain/crypto';
import { newId } from '../../domain/credentials';
import type { InlineCard } from '../../domain/payments/codecs';
import { brandOf, fullYear, iinOf, lastFour } from '../../domain/payments/cards';
import type { CardSummary } from '../../domain/payments/record';

export interface VaultCardDoc extends CardSummary {
  _id: string;
  organization_code: string;
  account_id: string;
  /** "<keyId>.<iv+tag+ciphertext>" */
  pan_sealed: string;
  key_id: string;
  created_at: Date;
  /** The CVV of a card vaulted with its payment, for that payment's authorization only. */
  security_code?: SecurityCodeOnCard;
}

interface SecurityCodeOnCard {
  /** The payment whose authorization it serves (also bound into the seal). */
  holder_id: string;
  code_sealed: string;
  expires_at: Date;
}

interface SecurityCodeDoc {
  _id: string;
  code_sealed: string;
  expires_at: Date;
}

const SECURITY_CODE_TTL_MS = 60 * 60 * 1000;

export function cardFingerprint(keyring: Keyring, organizationCode: string, pan: string): string {
  return keyedHash(keyring, 'fingerprint', pan, organizationCode);
}

/** `securityCodeFor`: keep the card's CVV on it for this holder's (a payment's) authorization. */
export async function vaultCard(db: Db, keyring: Keyring, owner: { organizationCode: string; accountId: string }, card: InlineCard, securityCodeFor?: string): Promise<{ cardId: string; summary: CardSummary }> {
  const cardId = newId();
  const pan = card.number;
  const sealed = sealString(keyring, 'vault', pan, cardId);
  const summary: CardSummary = {
    holder_name: card.holder_name,
    iin: iinOf(pan),
    lfd: lastFour(pan),
    brand: card.brand ?? brandOf(pan),
    type: card.type ?? null,
    expiration_month: card.expiration_month,
    expiration_year: fullYear(card.expiration_year),
    number_length: pan.length,
    fingerprint: cardFingerprint(keyring, owner.organizationCode, pan),
  };
  await db.collection<VaultCardDoc>('vault_cards').insertOne({
    _id: cardId,
    organization_code: owner.organizationCode,
    account_id: owner.accountId,
    pan_sealed: sealed,
    key_id: sealed.slice(0, sealed.indexOf('.')),
    ...summary,
    created_at: new Date(),
    ...(securityCodeFor && card.security_code ? { security_code: sealSecurityCode(keyring, securityCodeFor, card.security_code) } : {}),
  });
  return { cardId, summary };
}

function sealSecurityCode(keyring: Keyring, holderId: string, code: string): SecurityCodeOnCard {
  return { holder_id: holderId, code_sealed: sealString(keyring, 'vault', code, `cvv:${holderId}`), expires_at: new Date(Date.now() + SECURITY_CODE_TTL_MS) };
}

/** The CVV kept on `card` for `holderId`; null when there is none for it, or it expired. */
export function securityCodeOnCard(keyring: Keyring, card: VaultCardDoc, holderId: string): string | null {
  const kept = card.security_code;
  if (!kept || kept.holder_id !== holderId || kept.expires_at.getTime() <= Date.now()) return null;
  return openString(keyring, 'vault', kept.code_sealed, `cvv:${holderId}`);
}

export async function forgetSecurityCodeOnCard(db: Db, cardId: string): Promise<void> {
  await db.collection<VaultCardDoc>('vault_cards').updateOne({ _id: cardId }, { $unset: { security_code: '' } });
}

/** Housekeeping: CVVs kept on cards past their expiry (their authorization never ran). */
export async function purgeExpiredSecurityCodesOnCards(db: Db, now = new Date()): Promise<number> {
  const result = await db.collection<VaultCardDoc>('vault_cards').updateMany({ 'security_code.expires_at': { $lte: now } }, { $unset: { security_code: '' } });
  return result.modifiedCount;
}

export async function findVaultCard(db: Db, cardId: string): Promise<VaultCardDoc | null> {
  return db.collection<VaultCardDoc>('vault_cards').findOne({ _id: cardId });
}

export function openPan(keyring: Keyring, card: VaultCardDoc): string {
  return openString(keyring, 'vault', card.pan_sealed, card._id);
}

export function summaryOf(card: VaultCardDoc): CardSummary {
  const { holder_name, iin, lfd, brand, type, expiration_month, expiration_year, number_length, fingerprint } = card;
  return { holder_name, iin, lfd, brand, type, expiration_month, expiration_year, number_length, fingerprint };
}

/** Keeps a CVV for the one authorization of `holderId` (a payment id). */
export async function storeSecurityCode(db: Db, keyring: Keyring, holderId: string, code: string): Promise<void> {
  await db.collection<SecurityCodeDoc>('vault_security_codes').replaceOne(
    { _id: holderId },
    { code_sealed: sealString(keyring, 'vault', code, `cvv:${holderId}`), expires_at: new Date(Date.now() + SECURITY_CODE_TTL_MS) },
    { upsert: true },
  );
}

export async function readSecurityCode(db: Db, keyring: Keyring, holderId: string): Promise<string | null> {
  const doc = await db.collection<SecurityCodeDoc>('vault_security_codes').findOne({ _id: holderId });
  return doc ? openString(keyring, 'vault', doc.code_sealed, `cvv:${holderId}`) : null;
}

export async function forgetSecurityCode(db: Db, holderId: string): Promise<void> {
  await db.collection('vault_security_codes').deleteOne({ _id: holderId as never });
}

/**
 * Key rotation: re-seals every card not sealed under the active key. Safe to run again or
 * concurrently (each card is rewritten only if still under its old key).
 */
export async function resealVault(db: Db, keyring: Keyring): Promise<number> {
  let count = 0;
  const cards = db.collection<VaultCardDoc>('vault_cards');
  for await (const card of cards.find({ key_id: { $ne: keyring.activeKeyId } })) {
    const resealed = sealString(keyring, 'vault', openPan(keyring, card), card._id);
    const result = await cards.updateOne({ _id: card._id, key_id: card.key_id }, { $set: { pan_sealed: resealed, key_id: keyring.activeKeyId } });
    count += result.modifiedCount;
  }
  return count;
}
