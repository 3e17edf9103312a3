/**
 * Channel adapters: how a campaign communication leaves Switchyard. One interface for
 * every channel; the sandbox adapters deliver nowhere and answer a reference derived from
 * the idempotency key, so a retried send is the same send. A real WhatsApp or voice
 * provider adapter implements the same interface and passes the idempotency key on.
 */
import { createHash } from 'node:crypto';
import type { CampaignChannel } from '../domain/campaigns/codecs';

export interface OutboundCommunication {
  /** `${campaign_id}:${event_id}`: the provider must treat repeats of one key as one send. */
  idempotencyKey: string;
  channel: CampaignChannel;
  recipientPhone: string;
  campaign: { id: string; name: string; focus: string | null; country: string };
  payment: { id: string | null; amount: number; currency: string };
}

export interface ChannelAdapter {
  readonly name: string;
  send(message: OutboundCommunication): Promise<{ reference: string }>;
}

class SandboxChannelAdapter implements ChannelAdapter {
  constructor(readonly name: string, private readonly prefix: string) {}

  async send(message: OutboundCommunication): Promise<{ reference: string }> {
    const digest = createHash('sha256').update(message.idempotencyKey).digest('hex').slice(0, 24);
    return { reference: `${this.prefix}_${digest}` };
  }
}

export function sandboxChannelAdapters(): Record<CampaignChannel, ChannelAdapter> {
  return {
    WHATSAPP_MESSAGE: new SandboxChannelAdapter('sandbox-whatsapp', 'sbx_wa'),
    PHONE_CALL: new SandboxChannelAdapter('sandbox-voice', 'sbx_call'),
  };
}
