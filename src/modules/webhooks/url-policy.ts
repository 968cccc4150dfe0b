/**
 * Webhook URLs follow the outbound address policy (src/lib/outbound-policy.ts), at creation and
 * before every attempt; a refusal is 422 WEBHOOK_URL_NOT_ALLOWED naming the rule that refused.
 */
import { OutboundRefusal, resolveOutboundTarget, type OutboundTarget } from '../../lib/outbound-policy.js';
import { AppError } from '../../plugins/errors.js';

export type WebhookTarget = OutboundTarget;

/** Resolves the URL's host and answers the address to connect to, or refuses it (422). */
export async function resolveWebhookTarget(raw: string, allowPrivate: boolean, timeoutMs = 5000): Promise<WebhookTarget> {
  try {
    return await resolveOutboundTarget(raw, allowPrivate, timeoutMs);
  } catch (error) {
    if (!(error instanceof OutboundRefusal)) throw error;
    const detail = `the webhook url ${error.rule}`;
    throw new AppError('WEBHOOK_URL_NOT_ALLOWED', detail, { errors: [{ field: 'url', message: error.rule }] });
  }
}
