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
    if (Number(quantity) < 1 || Number(quantity) > 1_000_000) usage('--lines quantities must be 1..1000000');
    return { productId: productId!.toLowerCase(), quantity: Number(quantity) };
  });
}

/** One of `allowed`, or bad usage. */
function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], usage: Usage): T | undefined {
  if (value !== undefined && !allowed.includes(value as T)) usage(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T | undefined;
}

/** A text flag within the HTTP schema's length, or bad usage. */
function text(name: string, value: string | undefined, max: number, usage: Usage): string | undefined {
  if (value !== undefined && (value.length === 0 || value.length > max)) usage(`--${name} must be 1..${max} characters`);
  return value;
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
      const query: S.AdminOrderListQuery = {
        limit: 250,
        status: oneOf('status', flags.status, ['CREATED', 'PAID', 'FULFILLED', 'CANCELLED'], usage),
        fulfillmentStatus: oneOf('fulfillment-status', flags['fulfillment-status'], ['unfulfilled', 'partially_fulfilled', 'fulfilled'], usage),
        paymentStatus: oneOf('payment-status', flags['payment-status'], ['unpaid', 'authorized', 'paid', 'partially_refunded', 'refunded'], usage),
      };
      return inStore((db) => admin.listAdminOrders(db, store, query));
    }
    case 'show': {
      const orderId = id();
      return inStore((db) => admin.getAdminOrder(db, store, orderId));
    }
    case 'fulfil': {
      const orderId = id();
      const trackingUrl = text('tracking-url', flags['tracking-url'], 2000, usage);
      if (trackingUrl !== undefined && !/^https?:\/\/\S+$/.test(trackingUrl)) usage('--tracking-url must be an http(s) URL');
      const body: S.CreateFulfillmentBody = {
        lines: linesOf(flags.lines, usage), trackingNumber: text('tracking-number', flags['tracking-number'], 500, usage), trackingUrl, carrier: text('carrier', flags.carrier, 500, usage),
      };
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
      const body: S.CreateRefundBody = { amount: Number(flags.amount), reason: text('reason', flags.reason, 500, usage), lines: linesOf(flags.lines, usage), restock: flags.restock };
      if (body.amount < 1 || body.amount > 1_000_000_000_000) usage('--amount must be 1..1000000000000');
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
