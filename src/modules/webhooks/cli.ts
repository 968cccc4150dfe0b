/**
 * The webhook commands of `npm run cli`, on the configured database (same rules as the admin API):
 *   webhook create [--store <slug>] --url <url> --events <type,type|*> [--description <text>]
 *   webhook list [--store <slug>]
 *   webhook update [--store <slug>] <id> [--url ..] [--events ..] [--description ..] [--disable | --enable]
 *   webhook delete|rotate-secret|test [--store <slug>] <id>
 *   webhook deliveries [--store <slug>] <id> [--status pending|delivered|failed]
 *   webhook retry [--store <slug>] <id> <delivery-id>
 */
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { EVENT_TYPES } from '../events/index.js';
import { findStore } from '../stores/index.js';
import * as admin from './service.js';

export const WEBHOOK_USAGE = `  npm run cli -- webhook create [--store <slug>] --url <https-url> --events <type,...|*> [--description "text"]
  npm run cli -- webhook list [--store <slug>]
  npm run cli -- webhook update [--store <slug>] <id> [--url ..] [--events ..] [--description ..] [--disable | --enable]
  npm run cli -- webhook delete|rotate-secret|test [--store <slug>] <id>
  npm run cli -- webhook deliveries [--store <slug>] <id> [--status pending|delivered|failed]
  npm run cli -- webhook retry [--store <slug>] <id> <delivery-id>
      --events takes event types (order.created,order.paid) or * for every type, as the API does; the URL's host is
      resolved where the command runs, at creation, and again before every delivery.`;

export interface WebhookFlags {
  store: string;
  url?: string;
  events?: string;
  description?: string;
  status?: string;
  disable?: boolean;
  enable?: boolean;
}

type Usage = (message: string) => never;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function eventList(value: string, usage: Usage): Array<(typeof EVENT_TYPES)[number] | '*'> {
  const events = value.split(',').map((e) => e.trim());
  const allowed: readonly string[] = [...EVENT_TYPES, '*'];
  const bad = events.find((e) => !allowed.includes(e));
  if (bad !== undefined && bad.endsWith('.*')) {
    // The API takes exact types or "*"; a prefix form would silently miss the types added later.
    const prefix = bad.slice(0, -1);
    const matching = EVENT_TYPES.filter((type) => type.startsWith(prefix));
    usage(`"${bad}" is not an event type: the API takes exact types or "*" for every type${matching.length ? `; the ${prefix.slice(0, -1)} events are ${matching.join(',')}` : ''}`);
  }
  if (bad !== undefined) usage(`unknown event type "${bad}"; one of ${allowed.join(', ')}`);
  return events as Array<(typeof EVENT_TYPES)[number] | '*'>;
}

/**
 * A URL whose host does not resolve is refused at creation as it is before every delivery. From
 * the command line that is most often a machine without DNS, so the refusal says so.
 */
async function explainUnresolved<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.code === 'WEBHOOK_URL_NOT_ALLOWED' && /does not resolve/.test(error.detail)) {
      throw new AppError(
        'WEBHOOK_URL_NOT_ALLOWED',
        `${error.detail} from this machine (is there DNS here?): the host is resolved where the command runs, to refuse one on a private network, ` +
          'and again before every delivery; create the webhook where the host resolves, or with the API on the server',
      );
    }
    throw error;
  }
}

/** The command for `webhook <verb> ...`; calls `usage` (which throws) on bad usage. */
export function webhookCommand(verb: string | undefined, args: string[], flags: WebhookFlags, allowPrivateNetworks: boolean, usage: Usage) {
  const policy = { allowPrivateNetworks };
  const { store } = flags;
  const ids = (n: number) => {
    if (args.length !== n || !args.every((a) => UUID.test(a))) usage(`webhook ${verb} takes ${n === 1 ? 'a webhook id' : 'a webhook id and a delivery id'} (UUIDs)`);
    return args as [string, string];
  };
  const inStore = (run: (db: Database) => Promise<unknown>) => async (db: Database) => {
    if (!(await findStore(db, store))) throw new AppError('NOT_FOUND', `store "${store}" not found`);
    return run(db);
  };
  switch (verb) {
    case 'create': {
      if (!flags.url || !flags.events || args.length > 0) usage('webhook create needs --url and --events');
      const body = { url: flags.url, events: eventList(flags.events, usage), description: flags.description };
      return inStore((db) => explainUnresolved(admin.createWebhook(db, store, body, policy)));
    }
    case 'list':
      if (args.length > 0) usage('webhook list takes no arguments');
      return inStore((db) => admin.listWebhooks(db, store));
    case 'update': {
      const [id] = ids(1);
      if (flags.disable && flags.enable) usage('--disable and --enable exclude each other');
      const change = {
        url: flags.url,
        events: flags.events === undefined ? undefined : eventList(flags.events, usage),
        description: flags.description,
        disabled: flags.disable ? true : flags.enable ? false : undefined,
      };
      if (Object.values(change).every((v) => v === undefined)) usage('webhook update needs something to change');
      return inStore((db) => explainUnresolved(admin.updateWebhook(db, store, id, change, policy)));
    }
    case 'delete': {
      const [id] = ids(1);
      return inStore((db) => admin.deleteWebhook(db, store, id));
    }
    case 'rotate-secret': {
      const [id] = ids(1);
      return inStore((db) => admin.rotateWebhookSecret(db, store, id));
    }
    case 'test': {
      const [id] = ids(1);
      return inStore((db) => admin.sendTestEvent(db, store, id));
    }
    case 'deliveries': {
      const [id] = ids(1);
      const status = flags.status;
      if (status !== undefined && status !== 'pending' && status !== 'delivered' && status !== 'failed') usage('--status must be pending, delivered or failed');
      return inStore((db) => admin.listWebhookDeliveries(db, store, id, { status, limit: 250, offset: 0 }));
    }
    case 'retry': {
      const [id, deliveryId] = ids(2);
      return inStore((db) => admin.retryDelivery(db, store, id, deliveryId));
    }
    default:
      return usage(`unknown command: webhook ${verb ?? ''}`);
  }
}
