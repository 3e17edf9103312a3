/**
 * Campaign and rule state machines (contract, "States and transitions").
 *
 *   ACTIVE <-> PAUSED, ACTIVE | PAUSED -> COMPLETED (status update or duration.end_at),
 *   ACTIVE | PAUSED -> CANCELLED (DELETE /v1/campaigns/{id} or a status PATCH); COMPLETED and CANCELLED are
 *   terminal: any later change is rejected (422).
 * Asking for the status a campaign already has is accepted and changes nothing, so a
 * retried PATCH is harmless.
 */
import type { CampaignStatus } from './codecs';

export const TERMINAL_CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['COMPLETED', 'CANCELLED'];

export function isTerminal(status: CampaignStatus): boolean {
  return TERMINAL_CAMPAIGN_STATUSES.includes(status);
}

const ALLOWED: Record<CampaignStatus, readonly CampaignStatus[]> = {
  ACTIVE: ['PAUSED', 'COMPLETED', 'CANCELLED'],
  PAUSED: ['ACTIVE', 'COMPLETED', 'CANCELLED'],
  COMPLETED: [],
  CANCELLED: [],
};

export type TransitionCheck = { ok: true; changed: boolean } | { ok: false; message: string };

export function checkCampaignTransition(from: CampaignStatus, to: CampaignStatus): TransitionCheck {
  if (isTerminal(from)) return { ok: false, message: `invalid status transition: the campaign is ${from}, a terminal status` };
  if (from === to) return { ok: true, changed: false };
  if (!ALLOWED[from].includes(to)) return { ok: false, message: `invalid status transition from ${from} to ${to}` };
  return { ok: true, changed: true };
}

