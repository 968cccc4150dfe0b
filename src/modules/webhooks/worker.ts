/**
 * The delivery worker, in every server process: it claims due deliveries (row locks with SKIP
 * LOCKED and a lease, so processes share the work and never send one attempt twice), signs and
 * sends them, and writes each outcome. It runs beside requests and never delays one: orders only
 * insert delivery rows, and this loop picks them up on its next poll.
 */
import type { Database } from '../../db/client.js';
import { KeyedBatcher } from '../../lib/keyed-batcher.js';
import { toIso } from '../../lib/time.js';
import * as repo from './deliveries-repository.js';
import { postWebhook, type AttemptResult } from './sender.js';
import { signatureHeader } from './signing.js';
import { resolveWebhookTarget } from './url-policy.js';
import { AppError } from '../../plugins/errors.js';

export interface DeliverySettings {
  retryScheduleSeconds: number[];
  disableAfterHours: number;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  concurrency: number;
  pollIntervalMs: number;
  /** True while the process is busy serving requests: then one claim per poll, so deliveries never take the CPU from requests. */
  busy?: () => boolean;
}

interface Logger {
  warn(object: unknown, message: string): void;
}

/** The delay before the retry after failed attempt number `attempt` (1-based), with up to 20 % jitter; null when none is left. */
export function retryDelaySeconds(schedule: number[], attempt: number, random = Math.random): number | null {
  const base = schedule[attempt - 1];
  return base === undefined ? null : base * (1 + 0.2 * random());
}

/**
 * Keeps up to `concurrency` attempts in flight: it claims as many due deliveries as it has free
 * slots, and claims again once half the slots are free, so a slow receiver holds one slot, not a
 * round, and a backlog is claimed in rounds of half the slots, not one claim per delivery. While
 * the process is busy with requests (`busy`), it claims once per poll: a burst of orders is not
 * slowed by its own webhooks, whose backlog is sent at full speed once the burst is over.
 */
export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Outcomes being written: an attempt frees its slot when the receiver has answered, not when its outcome is stored. */
  private readonly recording = new Set<Promise<void>>();
  /** True while every slot was filled: then the attempt that frees half of them wakes the loop to claim more. */
  private waitingForSlot = false;
  /** Deliveries that succeed while the outcome of others is being written are written together next. */
  private readonly delivered = new KeyedBatcher<{ delivery: repo.ClaimedDelivery; statusCode: number }, void>(async (outcomes) => {
    await repo.recordDelivered(this.db, outcomes);
    return outcomes.map(() => ({ ok: true as const, value: undefined }));
  });

  constructor(
    private readonly db: Database,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
  ) {}

  /** Longer than any attempt can take, so a live sender never loses its claim. */
  private get leaseSeconds(): number {
    return Math.ceil((2 * this.settings.timeoutMs) / 1000) + 5;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
    await Promise.all(this.recording);
  }

  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void {
    clearTimeout(this.timer);
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.settings.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          claimed = this.launch(await repo.claimDueDeliveries(this.db, free, this.leaseSeconds));
        } catch (error) {
          this.log.warn({ err: error }, 'claiming webhook deliveries failed; trying again at the next poll');
        }
      }
      // More may be due when every free slot was filled: claim again once half the slots are free,
      // unless requests are busy: then the next claim waits for the next poll.
      const full = free > 0 && claimed === free && !this.settings.busy?.();
      if (this.running && !(full && this.inFlight.size <= this.settings.concurrency / 2)) await this.idle(full);
    }
  }

  /** Waits for a finished attempt (when full) or the next poll, whichever wakes it first. */
  private idle(full: boolean): Promise<void> {
    this.waitingForSlot = full;
    return new Promise<void>((resolve) => {
      this.wakeUp = () => {
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(this.wakeUp, full ? 1000 : this.settings.pollIntervalMs);
      this.timer.unref();
    });
  }

  private launch(claimed: repo.ClaimedDelivery[]): number {
    for (const d of claimed) {
      const attempt: Promise<void> = this.attempt(d)
        .catch((error: unknown) => this.log.warn({ err: error, delivery: d.id }, 'webhook attempt failed unexpectedly; it is retried after its lease'))
        .finally(() => {
          this.inFlight.delete(attempt);
          if (this.waitingForSlot && this.inFlight.size <= this.settings.concurrency / 2) this.wake();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** One round (tests, tools): claims up to `concurrency` due deliveries and attempts them all; answers how many. */
  async sendDue(): Promise<number> {
    const claimed = await repo.claimDueDeliveries(this.db, this.settings.concurrency, this.leaseSeconds);
    await Promise.all(claimed.map((d) => this.attempt(d)));
    await Promise.all(this.recording);
    return claimed.length;
  }

  private async attempt(d: repo.ClaimedDelivery): Promise<void> {
    const result = await this.send(d);
    const recorded = this.record(d, result).finally(() => this.recording.delete(recorded));
    this.recording.add(recorded);
  }

  private async record(d: repo.ClaimedDelivery, result: AttemptResult): Promise<void> {
    try {
      if (result.error === null) await this.delivered.submit('delivered', { delivery: d, statusCode: result.statusCode! });
      else {
        const retryInSeconds = retryDelaySeconds(this.settings.retryScheduleSeconds, d.attempts + 1);
        await repo.recordAttemptFailed(this.db, d, { ...result, error: result.error, retryInSeconds, disableAfterHours: this.settings.disableAfterHours });
      }
    } catch (error) {
      // The lease runs out and the attempt is made again: at least once, never lost.
      this.log.warn({ err: error, delivery: d.id }, 'could not record a webhook attempt; it will be retried after its lease');
    }
  }

  private async send(d: repo.ClaimedDelivery): Promise<AttemptResult> {
    let target;
    try {
      target = await resolveWebhookTarget(d.url, this.settings.allowPrivateNetworks, this.settings.timeoutMs);
    } catch (error) {
      if (error instanceof AppError) return { statusCode: null, error: `WEBHOOK_URL_NOT_ALLOWED: ${error.detail}` };
      throw error;
    }
    const envelope = JSON.stringify({ id: d.eventId, type: d.type, store: d.store, timestamp: toIso(d.eventCreatedAt) });
    const body = `${envelope.slice(0, -1)},"data":${d.dataJson}}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': d.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(d.secrets, d.eventId, timestamp, body),
    };
    return postWebhook(target, headers, body, this.settings.timeoutMs);
  }
}
