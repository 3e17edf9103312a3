/**
 * Credits the organization balance with the split entries of a captured payment (the
 * marketplace's funds held for its recipients, paid out later by split transfers). Called
 * by the payment workflow when a payment becomes fully captured; idempotent per entry.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PaymentRecord } from '../domain/payments/record';

const { moveBalance } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' } });

export async function creditCapturedSplits(payment: PaymentRecord): Promise<void> {
  for (const [index, share] of payment.split.entries()) {
    await moveBalance({
      organizationCode: payment.organization_code,
      currency: share.amount.currency,
      operationKey: `split:${payment.id}:${index}`,
      kind: 'SPLIT_CREDIT',
      amount: share.amount.value,
      reference: `${payment.id}:${share.recipient_id}`,
    });
  }
}
