/**
 * Enrollment of a payment method in a customer session: the card is already in the vault
 * (the API seals it before starting this); the workflow records the enrolled method so
 * the change is in history like every lifecycle change.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { EnrollInput } from '../activities/repositories/customers';

const { enrollPaymentMethod } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });

export async function enrollmentWorkflow(input: EnrollInput): Promise<{ vaultedToken: string }> {
  return enrollPaymentMethod(input);
}
