/**
 * The busy cart writes, combined per store: new carts, and products added to carts. Requests of a
 * store that arrive while its previous round runs are taken together in the next one (see
 * KeyedBatcher), in arrival order, each with its own answer: a shop's traffic costs a few
 * statements per round instead of a few per request (a round trip to the database is most of
 * what a cart write costs). Each request is still decided on its own: one refusal refuses only
 * that request.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../db/client.js';
import { KeyedBatcher, type Outcome } from '../../lib/keyed-batcher.js';
import { toIso } from '../../lib/time.js';
import { AppError } from '../../plugins/errors.js';
import type { IdempotencyClaim } from '../idempotency/plugin.js';
import * as repo from './repository.js';
import type { CartView, CreateCartBody, LineRequest, Warning } from './schemas.js';
import { refusal, refusalError, sumLines } from './service.js';
import { assertCartPending } from './state.js';
import { cartView } from './views.js';

type Created = { cart: CartView; warnings?: Warning[] };
type Changed = { cart: CartView };

interface NewCart {
  store: string;
  lines: Map<string, number>;
  claim: IdempotencyClaim | null;
}

interface Addition {
  store: string;
  cartId: string;
  productId: string;
  quantity: number;
}

export class CombinedCartWrites {
  private readonly creations = new KeyedBatcher<NewCart, Created>((carts) => this.createAll(carts));
  private readonly additions = new KeyedBatcher<Addition, Changed>((lines) => this.db.transaction((tx) => this.addAll(tx, lines)));

  constructor(
    private readonly db: Database,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * Creates a cart with the available lines; the others come back as warnings. A new cart locks
   * nothing: the products are read as of now, then the round's carts are written in one statement.
   */
  createCart(store: string, body: CreateCartBody, claim: IdempotencyClaim | null): Promise<Created> {
    return this.creations.submit(store, { store, lines: sumLines(body.products), claim });
  }

  /** Adds units of a product to the cart, to its line if it has one. */
  addItemToCart(store: string, cartId: string, line: LineRequest): Promise<Changed> {
    return this.additions.submit(store, { store, cartId: cartId.toLowerCase(), productId: line.id.toLowerCase(), quantity: line.quantity });
  }

  private async createAll(requests: NewCart[]): Promise<Array<Outcome<Created>>> {
    const store = requests[0]!.store;
    const products = await repo.availability(this.db, store, [...new Set(requests.flatMap((r) => [...r.lines.keys()]))]);
    const now = products.values().next().value?.now;
    const writes: repo.NewCarts = { carts: [], lines: [], keys: [] };
    const outcomes = requests.map((request): Outcome<Created> => {
      const warnings: Warning[] = [];
      const accepted: repo.CartLineRow[] = [];
      for (const [productId, quantity] of request.lines) {
        const refused = refusal(productId, quantity, products.get(productId));
        if (refused) warnings.push(refused);
        else accepted.push({ ...products.get(productId)!, lineQuantity: quantity });
      }
      if (accepted.length === 0) {
        return { ok: false, error: new AppError('PRODUCT_UNAVAILABLE', 'none of the requested products is available', { errors: warnings }) };
      }
      const cart = this.newCart(store, now!);
      const result: Created = { cart: cartView(cart, accepted) };
      if (warnings.length > 0) result.warnings = warnings;
      writes.carts.push({ id: cart.id, created_at: toIso(cart.createdAt), expires_at: toIso(cart.expiresAt) });
      for (const line of accepted) writes.lines.push([cart.id, line.id, line.lineQuantity]);
      if (request.claim) writes.keys.push({ caller: request.claim.caller, key: request.claim.key, body: JSON.stringify(result) });
      return { ok: true, value: result };
    });
    if (writes.carts.length > 0) await repo.insertCarts(this.db, store, writes);
    return outcomes;
  }

  private newCart(store: string, now: Date): repo.CartRow {
    return {
      id: randomUUID(), store, status: 'PENDING', customerId: null, addressId: null,
      createdAt: now, updatedAt: null, deletedAt: null, expiresAt: this.expiryFrom(now),
    };
  }

  /** A cart changed at `now` expires CART_TTL_SECONDS later. */
  private expiryFrom(now: Date): Date {
    return new Date(now.getTime() + this.ttlSeconds * 1000);
  }

  /**
   * Carts do not hold stock: the products are read as of now, then the round's carts are locked
   * and their lines read under the lock, and each addition is decided in turn against its cart as
   * the ones before it left it.
   */
  private async addAll(tx: Executor, requests: Addition[]): Promise<Array<Outcome<Changed>>> {
    const store = requests[0]!.store;
    const products = await repo.availability(tx, store, [...new Set(requests.map((r) => r.productId))]);
    const cartIds = [...new Set(requests.map((r) => r.cartId))];
    const carts = await repo.lockCarts(tx, store, cartIds);
    const lines = await repo.linesOfCarts(tx, store, [...carts.keys()]);
    // Every cart changed in this round records the transaction's time as its change.
    const now = carts.values().next().value?.now ?? new Date();
    const change = { updatedAt: now, expiresAt: this.expiryFrom(now) };
    const changed = new Map<string, Map<string, number>>();
    const outcomes = requests.map((request): Outcome<Changed> => {
      const cart = carts.get(request.cartId);
      try {
        if (!cart) throw new AppError('NOT_FOUND', `cart ${request.cartId} not found`);
        assertCartPending(cart.status, cart.id);
        const cartLines = lines.get(cart.id) ?? [];
        const index = cartLines.findIndex((l) => l.id === request.productId);
        const quantity = (index < 0 ? 0 : cartLines[index]!.lineQuantity) + request.quantity;
        const refused = refusal(request.productId, quantity, products.get(request.productId));
        if (refused) throw refusalError(refused);
        const line = { ...(index < 0 ? products.get(request.productId)! : cartLines[index]!), lineQuantity: quantity };
        const next = index < 0 ? [...cartLines, line] : cartLines.map((l, i) => (i === index ? line : l));
        lines.set(cart.id, next);
        changed.set(cart.id, (changed.get(cart.id) ?? new Map<string, number>()).set(request.productId, quantity));
        return { ok: true, value: { cart: cartView({ ...cart, ...change }, next) } };
      } catch (error) {
        return { ok: false, error };
      }
    });
    if (changed.size > 0) {
      const writes = [...changed].flatMap(([cartId, quantities]) => [...quantities].map(([productId, quantity]): [string, string, number] => [cartId, productId, quantity]));
      await repo.writeLines(tx, store, writes, { ids: [...changed.keys()], now: change.updatedAt, expiresAt: change.expiresAt });
    }
    return outcomes;
  }
}
