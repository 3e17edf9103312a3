/**
 * The card vault. A PAN is stored only sealed (AES-256-GCM under the vault subkey, the
 * master key id kept beside it so keys can rotate) with a keyed fingerprint (HMAC) that
 * recognises the same card without decrypting. A CVV is stored sealed only between the
 * request and the authorization that uses it, then deleted (and purged by expiry if the
 * authorization never happens).
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

export async function vaultCard(db: Db, keyring: Keyring, owner: { organizationCode: string; accountId: string }, card: InlineCard): Promise<{ cardId: string; summary: CardSummary }> {
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
  });
  return { cardId, summary };
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
