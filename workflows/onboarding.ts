/**
 * Recipient onboarding (table in domain/recipients/codecs.ts): registers or links the
 * recipient at the provider, records each status with a history snapshot and notifies
 * callback_url (else the account webhook). The API starts it with `onboardingAnswered`,
 * which returns once the provider has answered (or the API stops waiting).
 * Document bytes never enter the history: the record holds only their references.
 */
import { allHandlersFinished, ApplicationFailure, condition, defineUpdate, patched, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OnboardAtProviderResult } from '../activities/money-movement';
import type { RoutedConnection } from '../activities/repositories/routing';
import { OnboardingRecord, renderOnboarding, withOnboardingChanges } from '../domain/recipients/codecs';
import { startWebhookDelivery } from './webhook-delivery';

const { saveMoneyRecord, applyOnboardingToRecipient } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' } });
const { onboardAtProvider } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '3 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 8 },
});

export interface OnboardingInput {
  record: OnboardingRecord;
  connection: RoutedConnection;
  bank: Record<string, string | null> | null;
}

export const onboardingAnsweredUpdate = defineUpdate<OnboardingRecord>('onboardingAnswered');

export async function onboardingWorkflow(input: OnboardingInput): Promise<OnboardingRecord> {
  const now = () => new Date().toISOString();
  let record = input.record;
  let answered = false;
  setHandler(onboardingAnsweredUpdate, async () => {
    await condition(() => answered);
    return record;
  });

  async function save(): Promise<void> {
    await saveMoneyRecord({ collection: 'recipient_onboardings', record });
    upsertSearchAttributes({ ResourceStatus: [record.status] });
  }

  await save();
  let result: OnboardAtProviderResult;
  try {
    result = await onboardAtProvider({
      onboardingId: record.id,
      connection: input.connection,
      existingRecipientId: record.type === 'PREVIOUSLY_ONBOARDED' ? record.provider.recipient_id : null,
      legalEntity: { type: record.recipient.national_entity, name: record.recipient.legal_name ?? `${record.recipient.first_name ?? ''} ${record.recipient.last_name ?? ''}`.trim(), country: record.recipient.country },
      documentCategories: record.documentation.map((d) => d.content_category),
      termsAccepted: record.terms_of_service.acceptance,
      bank: input.bank,
    });
  } catch (error) {
    const cause = error instanceof ApplicationFailure ? error.message : (error as Error).message;
    result = { status: 'FAILED', providerRecipientId: null, requirements: [], legalEntity: null, onboardingUrl: null, redirectUrl: null, reason: `provider unavailable: ${cause}` };
  }
  const at = now();
  // What the provider accepted becomes the recipient's before anyone hears of the success, so
  // GET /v1/recipients/{id} after the answer shows the withdrawal method it was onboarded with.
  const recipient =
    result.status === 'SUCCEEDED' && patched('onboarding-updates-recipient')
      ? await applyOnboardingToRecipient({
          organizationCode: record.organization_code,
          recipientId: record.recipient_id,
          bank: record.withdrawal_methods.bank,
          legalRepresentatives: record.legal_representatives,
          documentation: record.documentation,
          at,
        })
      : null;
  record = withOnboardingChanges(record, {
    status: result.status,
    requirements: result.requirements,
    failure_reason: result.reason,
    provider: { ...record.provider, recipient_id: result.providerRecipientId ?? record.provider.recipient_id, legal_entity: result.legalEntity, onboarding_url: result.onboardingUrl, redirect_url: result.redirectUrl },
    ...(recipient ? { recipient } : {}),
  }, at);
  await save();
  answered = true;
  await startWebhookDelivery({
    deliveryId: `${record.id}:${record.version}`,
    eventId: `${record.id}:${record.version}`,
    eventType: `onboarding.${record.status.toLowerCase()}`,
    organizationCode: record.organization_code,
    accountId: record.account_id,
    resourceType: 'onboarding',
    resourceId: record.id,
    callbackUrl: record.callback_url,
    occurredAt: record.updated_at,
    data: renderOnboarding(record) as unknown as Record<string, unknown>,
  });
  await condition(allHandlersFinished);
  return record;
}
