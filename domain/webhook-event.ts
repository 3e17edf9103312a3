/**
 * The body of an outgoing webhook event (no imports: workflows build it too).
 */

/** The exact body of a webhook event: what is signed, sent, and listed by GET /v1/webhook-events. */
export function webhookEventBody(event: { eventId: string; eventType: string; occurredAt: string; accountId: string; data: Record<string, unknown> }): string {
  return JSON.stringify({ id: event.eventId, type: event.eventType, created_at: event.occurredAt, account_id: event.accountId, data: event.data });
}
