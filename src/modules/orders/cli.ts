/**
 * The order commands of `npm run cli`, on the configured database (same rules as the admin API), for
 * a store with no dashboard:
 *   order list --store <slug> [--status S] [--fulfillment-status S] [--payment-status S]
 *   order show --store <slug> <id>
 *   order fulfil --store <slug> <id> [--lines <productId:qty,...>] [--tracking-number ..] [--tracking-url ..] [--carrier ..]
 *   order cancel --store <slug> <id>
 *   order refund --store <slug> <id> --amount <n> [--reason ..] [--lines <productId:qty,...>] [--restock]
 * Provider calls (a capture, a Stripe refund or void) are made from here too, after the commit, with
 * the same idempotency keys as the service's; one that fails is made by the service's maintenance job.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { withRecordedEvents } from '../events/index.js';
import { PaymentsRuntime, type PaymentsSettings } from '../payments/index.js';
import { findStore } from '../stores/index.js';
import * as admin from './admin-service.js';
import * as S from './schemas.js';

export const ORDER_USAGE = `  npm run cli -- order list [--store <slug>] [--status CREATED|PAID|FULFILLED|CANCELLED] [--fulfillment-status S] [--payment-status S]
  npm run cli -- order show [--store <slug>] <id>
  npm run cli -- order fulfil [--store <slug>] <id> [--lines <productId:qty,...>] [--tracking-number ..] [--tracking-url ..] [--carrier ..]
  npm run cli -- order cancel [--store <slug>] <id>
  npm run cli -- order refund [--store <slug>] <id> --amount <n> [--reason ..] [--lines <productId:qty,...>] [--restock]`;

export interface OrderFlags {
  store: string;
  status?: string;
  'fulfillment-status'?: string;
  'payment-status'?: string;
  lines?: string;
  'tracking-number'?: string;
  'tracking-url'?: string;
  carrier?: string;
  amount?: string;
  reason?: string;
  restock?: boolean;
}

type Usage = (message: string) => never;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `productId:qty,...` as lines. */
function linesOf(text: string | undefined, usage: Usage) {
  if (text === undefined) return undefined;
  return text.split(',').map((part) => {
    const [productId, quantity] = part.trim().split(':');
    if (!productId || !UUID.test(productId) || !/^\d+$/.test(quantity ?? '')) usage('--lines is <productId:quantity>,... (UUIDs and whole numbers)');
    return { productId: productId!, quantity: Number(quantity) };
  });
}

/** A body the HTTP schema would take, or bad usage naming the first problem. */
function checked<T extends TSchema>(schema: T, body: unknown, usage: Usage): Static<T> {
  const clean = JSON.parse(JSON.stringify(body)) as Static<T>;
  const problem = Value.Errors(schema, clean).First();
  if (problem) usage(`${problem.path || 'the arguments'}: ${problem.message}`);
  return clean;
}

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child() { return quiet; }, level: 'silent', silent() {} } as unknown as FastifyBaseLogger;

/** The command for `order <verb> ...`; calls `usage` (which throws) on bad usage. */
export function orderCommand(verb: string | undefined, args: string[], flags: OrderFlags, settings: PaymentsSettings, usage: Usage) {
  const { store } = flags;
  const id = () => {
    if (args.length !== 1 || !UUID.test(args[0]!)) usage(`order ${verb} takes an order id (a UUID)`);
    return args[0]!;
  };
  const inStore = (run: (db: Database) => Promise<unknown>) => async (db: Database) => {
    if (!(await findStore(db, store))) throw new AppError('NOT_FOUND', `store "${store}" not found`);
    return run(db);
  };
  switch (verb) {
    case 'list': {
      if (args.length > 0) usage('order list takes no arguments');
      const query = checked(S.AdminOrderListQuery, { status: flags.status, fulfillmentStatus: flags['fulfillment-status'], paymentStatus: flags['payment-status'], limit: 250 }, usage);
      return inStore((db) => admin.listAdminOrders(db, store, query));
    }
    case 'show': {
      const orderId = id();
      return inStore((db) => admin.getAdminOrder(db, store, orderId));
    }
    case 'fulfil': {
      const orderId = id();
      const body = checked(S.CreateFulfillmentBody, { lines: linesOf(flags.lines, usage), trackingNumber: flags['tracking-number'], trackingUrl: flags['tracking-url'], carrier: flags.carrier }, usage);
      return inStore(async (db) => {
        await admin.checkFulfillment(db, store, orderId, body);
        await new PaymentsRuntime(db, settings, quiet).captureOrder(store, orderId);
        return withRecordedEvents(db, store, (tx, record) => admin.fulfilOrder(tx, record, store, orderId, body));
      });
    }
    case 'cancel': {
      const orderId = id();
      return inStore(async (db) => {
        const changed = await withRecordedEvents(db, store, (tx, record) => admin.changeOrderStatus(tx, record, store, orderId, 'CANCELLED'));
        await new PaymentsRuntime(db, settings, quiet).settleOrder(store, orderId).catch(() => undefined);
        return changed;
      });
    }
    case 'refund': {
      const orderId = id();
      if (flags.amount === undefined || !/^\d+$/.test(flags.amount)) usage('order refund needs --amount <whole number of minor units>');
      const body = checked(S.CreateRefundBody, { amount: Number(flags.amount), reason: flags.reason, lines: linesOf(flags.lines, usage), restock: flags.restock }, usage);
      return inStore(async (db) => {
        const done = await withRecordedEvents(db, store, (tx, record) => admin.refundOrder(tx, record, store, orderId, body));
        if (done.refund.status === 'pending') await new PaymentsRuntime(db, settings, quiet).settleRefund(store, done.refund.id).catch(() => undefined);
        return done;
      });
    }
    default:
      return usage(`unknown order command: ${verb ?? '(none)'}`);
  }
}
