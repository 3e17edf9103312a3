/**
 * Enrollment activities: an enrolled payment method is written here only (from the
 * enrollment workflow or a payment's vault_on_success), idempotently by its token.
 */
import { findByIdWithin } from './runtime/mongo';
import type { ActivityDeps } from './index';
import { buildPaymentMethodDoc, CustomerDoc, EnrollInput, PaymentMethodDoc } from './repositories/customers';
import { findVaultCard } from './repositories/vault';

export function createCustomerActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async enrollPaymentMethod(input: EnrollInput): Promise<{ vaultedToken: string }> {
      const methods = db.collection<PaymentMethodDoc>('payment_methods');
      const card = await findVaultCard(db, input.cardId);
      const customer = await findByIdWithin(db.collection<CustomerDoc>('customers'), input.customerId, { organization_code: input.organizationCode });
      if (!card || !customer) throw new Error('card or customer missing for enrollment');
      // The same card enrolled again for the same customer keeps its first token.
      const existing = await methods.findOne({ customer_id: input.customerId, 'card_data.fingerprint': card.fingerprint, status: 'ENROLLED' });
      if (existing) return { vaultedToken: existing._id };
      try {
        await methods.insertOne(buildPaymentMethodDoc(input, card, customer, new Date()));
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error; // retried activity
      }
      return { vaultedToken: input.vaultedToken };
    },
  };
}
