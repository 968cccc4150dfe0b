/**
 * Orders: the list with its search (number, email or name, dates, statuses), and one order with
 * its lines, totals, payments, shipments and refunds, and what can be done to it: mark it paid,
 * fulfil it with tracking, refund it (with a return to stock), cancel it.
 */
import { Fragment, useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ok, Refusal, type Schemas } from './api.js';
import { Field, go, money, newKey, PAGE, Problem, toCents, useAction, when } from './ui.js';

type Order = Schemas['Order'];
type Line = Order['products'][number];

const STATUSES = ['CREATED', 'PAID', 'FULFILLED', 'CANCELLED'] as const;
const PAYMENT_STATUSES = ['unpaid', 'authorized', 'paid', 'partially_refunded', 'refunded'] as const;
const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const;
const words = (status: string) => status.replaceAll('_', ' ');

interface Search { find: string; status: string; paymentStatus: string; fulfillmentStatus: string; from: string; to: string }
const NO_SEARCH: Search = { find: '', status: '', paymentStatus: '', fulfillmentStatus: '', from: '', to: '' };

/** The list's query: digits are an order number (exact), other text the email or the recipient's name. */
function queryOf(search: Search, offset: number) {
  const find = search.find.trim().replace(/^#/, '');
  const day = (date: string, plus = 0) => new Date(Date.parse(`${date}T00:00:00`) + plus * 86_400_000).toISOString();
  return {
    limit: PAGE, offset,
    ...(/^\d{1,15}$/.test(find) ? { number: Number(find) } : find ? { q: find } : {}),
    ...(search.status ? { status: search.status as never } : {}),
    ...(search.paymentStatus ? { paymentStatus: search.paymentStatus as never } : {}),
    ...(search.fulfillmentStatus ? { fulfillmentStatus: search.fulfillmentStatus as never } : {}),
    // Dates are the merchant's own days: from the start of `from` to the end of `to`.
    ...(search.from ? { createdFrom: day(search.from) } : {}),
    ...(search.to ? { createdTo: day(search.to, 1) } : {}),
  };
}

export function Orders() {
  const [form, setForm] = useState<Search>(NO_SEARCH);
  const [search, setSearch] = useState<Search>(NO_SEARCH);
  const [offset, setOffset] = useState(0);
  const [list, setList] = useState<{ orders: Order[]; total: number } | null>(null);
  const { refusal, run } = useAction();
  useEffect(() => {
    run(async () => setList(ok(await api.GET('/api/v1/admin/orders', { params: { query: queryOf(search, offset) } }))));
  }, [search, offset, run]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setOffset(0);
    setSearch({ ...form });
  };
  const set = (key: keyof Search) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const select = (key: 'status' | 'paymentStatus' | 'fulfillmentStatus', label: string, values: readonly string[]) => (
    <label>{label}
      <select name={key} value={form[key]} onChange={(e) => { set(key)(e); setOffset(0); setSearch({ ...form, [key]: e.target.value }); }}>
        <option value="">Any</option>{values.map((s) => <option key={s} value={s}>{words(s)}</option>)}
      </select>
    </label>
  );
  return (
    <>
      <h1>Orders</h1>
      <form className="panel filters" role="search" aria-label="Find orders" onSubmit={submit}>
        <label className="wide">Order number, email or name<input type="search" name="find" value={form.find} onChange={set('find')} placeholder="1042, ana@example.com, Ana" /></label>
        <label>Placed from<input type="date" name="from" value={form.from} onChange={set('from')} /></label>
        <label>to<input type="date" name="to" value={form.to} onChange={set('to')} /></label>
        {select('status', 'Status', STATUSES)}
        {select('paymentStatus', 'Payment', PAYMENT_STATUSES)}
        {select('fulfillmentStatus', 'Fulfilment', FULFILLMENT_STATUSES)}
        <div className="row"><button className="primary">Search</button>{JSON.stringify(search) !== JSON.stringify(NO_SEARCH) && <button type="button" onClick={() => { setForm(NO_SEARCH); setSearch(NO_SEARCH); setOffset(0); }}>Clear</button>}</div>
      </form>
      <Problem refusal={refusal} />
      <div className="table-wrap">
        <table>
          <thead><tr><th>Order</th><th className="hide-narrow">Placed</th><th className="hide-narrow">Customer</th><th className="num">Total</th><th>Payment</th><th>Status</th></tr></thead>
          <tbody>
            {list?.orders.map((o) => (
              <tr key={o.id} className="link" tabIndex={0} onClick={() => go(`/orders/${o.id}`)} onKeyDown={(e) => e.key === 'Enter' && go(`/orders/${o.id}`)}>
                <td><strong>#{o.number}</strong></td><td className="hide-narrow">{when(o.createdAt)}</td><td className="hide-narrow">{o.email ?? ''}</td>
                <td className="num">{money(o.total)} {o.currency}</td><td><span className={`badge ${o.paymentStatus}`}>{words(o.paymentStatus)}</span></td><td><span className={`badge ${o.status}`}>{o.status}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list && (
        <div className="pager">
          <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
          <span className="muted" role="status">{list.total === 0 ? 'No orders match' : `${offset + 1}–${offset + list.orders.length} of ${list.total}`}</span>
          <button disabled={offset + PAGE >= list.total} onClick={() => setOffset(offset + PAGE)}>Next</button>
        </div>
      )}
    </>
  );
}

/** Units of each product that shipments or refunds already list. */
function unitsListed(entries: Array<{ lines: Array<{ productId: string; quantity: number }> }>): Map<string, number> {
  const units = new Map<string, number>();
  for (const entry of entries) for (const line of entry.lines) units.set(line.productId, (units.get(line.productId) ?? 0) + line.quantity);
  return units;
}

const optionsText = (line: Line) => Object.entries(line.options ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ');

export function OrderDetail({ id }: { id: string }) {
  const [order, setOrder] = useState<Order | null>(null);
  const [notice, setNotice] = useState('');
  const { refusal, run } = useAction();
  const load = useCallback(async () => setOrder(ok(await api.GET('/api/v1/admin/orders/{id}', { params: { path: { id } } })).order), [id]);
  useEffect(() => void run(load), [run, load]);
  const changed = (next: Order, message: string) => {
    setOrder(next);
    setNotice(message);
  };
  if (!order) return <><div className="row spread"><h1>Order</h1><a href="#/orders">Back to orders</a></div><Problem refusal={refusal} /></>;
  const fulfilled = unitsListed(order.fulfillments);
  const balance = order.paidTotal - order.refundedTotal;
  return (
    <>
      <div className="row spread">
        <h1>Order #{order.number} <span className={`badge ${order.status}`}>{order.status}</span></h1>
        <a href="#/orders">Back to orders</a>
      </div>
      <Problem refusal={refusal} />
      {notice && <div className="notice" role="status">{notice}</div>}
      <div className="columns">
        <div>
          <section className="panel" aria-label="Lines">
            <table>
              <thead><tr><th>Item</th><th className="num">Qty</th><th className="num hide-narrow">Shipped</th><th className="num">Amount</th></tr></thead>
              <tbody>{order.products.map((line) => (
                <tr key={line.id}><td>{line.name}<div className="muted">{[line.sku, optionsText(line)].filter(Boolean).join(' · ')}</div></td>
                  <td className="num">{line.order.quantity}</td><td className="num hide-narrow">{fulfilled.get(line.id) ?? 0}</td><td className="num">{money(line.order.price)}</td></tr>
              ))}</tbody>
            </table>
            <dl className="totals">
              <dt>Subtotal</dt><dd>{money(order.price)}</dd>
              {order.discount && <><dt>Discount {order.discount.code}</dt><dd>−{money(order.discountTotal)}</dd></>}
              {order.shipping && <><dt>Shipping ({order.shipping.name})</dt><dd>{money(order.shippingTotal)}</dd></>}
              {order.taxLines.map((tax, i) => <Fragment key={i}><dt>{tax.name} {(tax.rate / 100).toFixed(2)} %</dt><dd>{money(tax.amount)}</dd></Fragment>)}
              <dt className="strong">Total</dt><dd className="strong">{money(order.total)} {order.currency}</dd>
              <dt>Paid</dt><dd>{money(order.paidTotal)}</dd>
              {order.refundedTotal > 0 && <><dt>Refunded</dt><dd>−{money(order.refundedTotal)}</dd></>}
            </dl>
          </section>
          <h2>Payments <span className={`badge ${order.paymentStatus}`}>{words(order.paymentStatus)}</span></h2>
          <div className="table-wrap">
            <table>
              <thead><tr><th>Provider</th><th>Status</th><th className="num">Amount</th><th className="num hide-narrow">Captured</th><th className="num hide-narrow">Refunded</th><th className="hide-narrow">When</th></tr></thead>
              <tbody>{order.payments.length === 0 ? <tr><td colSpan={6} className="muted">No payment yet</td></tr> : order.payments.map((p) => (
                <tr key={p.id}><td>{p.provider}</td><td><span className={`badge ${p.status}`}>{p.status}</span></td><td className="num">{money(p.amount)}</td><td className="num hide-narrow">{money(p.capturedAmount)}</td><td className="num hide-narrow">{money(p.refundedAmount)}</td><td className="hide-narrow">{when(p.createdAt)}</td></tr>
              ))}</tbody>
            </table>
          </div>
          <h2>Shipments <span className={`badge ${order.fulfillmentStatus}`}>{words(order.fulfillmentStatus)}</span></h2>
          {order.fulfillments.length === 0 ? <p className="muted">Nothing shipped yet.</p> : (
            <ul className="plain">{order.fulfillments.map((f) => (
              <li key={f.id} className="panel tight">
                <strong>{f.lines.reduce((n, l) => n + l.quantity, 0)} unit(s)</strong> · {when(f.createdAt)}
                <div>{f.carrier ?? 'Carrier not given'}{f.trackingNumber && <> · tracking {f.trackingUrl ? <a href={f.trackingUrl} target="_blank" rel="noreferrer noopener">{f.trackingNumber}</a> : f.trackingNumber}</>}</div>
              </li>
            ))}</ul>
          )}
          {order.refunds.length > 0 && (
            <>
              <h2>Refunds</h2>
              <ul className="plain">{order.refunds.map((r) => (
                <li key={r.id} className="panel tight"><strong>{money(r.amount)}</strong> · <span className={`badge ${r.status}`}>{r.status}</span> · {when(r.createdAt)}
                  {r.reason && <div className="muted">{r.reason}</div>}{r.restock && <div className="muted">{r.lines.reduce((n, l) => n + l.quantity, 0)} unit(s) back in stock</div>}</li>
              ))}</ul>
            </>
          )}
        </div>
        <aside>
          <section className="panel" aria-label="Customer">
            <h2 className="first">Customer</h2>
            <div>{order.email ?? <span className="muted">no email</span>}</div>
            <div className="muted">{[order.address.name, `${order.address.street} ${order.address.number ?? ''}`.trim(), order.address.city, order.address.zipcode, order.address.country].filter(Boolean).join(', ')}</div>
            <div className="muted">Placed {when(order.createdAt)}</div>
          </section>
          {order.status === 'CREATED' && <MarkPaid order={order} onDone={changed} />}
          {order.status === 'PAID' && <Fulfil key={order.fulfillments.length} order={order} fulfilled={fulfilled} onDone={changed} />}
          {balance > 0 && <RefundForm key={balance} order={order} balance={balance} onDone={changed} />}
          {(order.status === 'CREATED' || (order.status === 'PAID' && order.fulfillments.length === 0)) && <Cancel order={order} onDone={changed} />}
        </aside>
      </div>
    </>
  );
}

type Done = (order: Order, message: string) => void;

function MarkPaid({ order, onDone }: { order: Order; onDone: Done }) {
  const { refusal, busy, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => onDone(ok(await api.PATCH('/api/v1/admin/orders/{id}', { params: { path: { id: order.id } }, body: { status: 'PAID' } })).order, 'Marked as paid.'));
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Mark as paid">
      <h2 className="first">Payment received another way</h2>
      <p className="muted">Records a manual payment of {money(order.total - order.paidTotal)} {order.currency}.</p>
      <Problem refusal={refusal} />
      <button disabled={busy}>Mark as paid</button>
    </form>
  );
}

function Fulfil({ order, fulfilled, onDone }: { order: Order; fulfilled: Map<string, number>; onDone: Done }) {
  const left = (line: Line) => line.order.quantity - (fulfilled.get(line.id) ?? 0);
  const [form, setForm] = useState({ carrier: '', trackingNumber: '', trackingUrl: '' });
  const [units, setUnits] = useState<Record<string, string>>(() => Object.fromEntries(order.products.map((l) => [l.id, String(left(l))])));
  const { refusal, busy, run } = useAction();
  const lines = order.products.filter((l) => left(l) > 0);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const chosen = lines.map((l) => ({ productId: l.id, quantity: Number(units[l.id] ?? 0) })).filter((l) => l.quantity !== 0);
      // Every unit left: no `lines`, which the API reads as "everything not yet shipped".
      const everything = chosen.length === lines.length && chosen.every((c) => c.quantity === left(order.products.find((l) => l.id === c.productId)!));
      const body = { ...(everything ? {} : { lines: chosen }), ...Object.fromEntries(Object.entries(form).filter(([, v]) => v.trim()).map(([k, v]) => [k, v.trim()])) };
      const answer = ok(await api.POST('/api/v1/admin/orders/{id}/fulfillments', { params: { path: { id: order.id } }, body }));
      onDone(answer.order, `Shipped ${answer.fulfillment.lines.reduce((n, l) => n + l.quantity, 0)} unit(s)${answer.fulfillment.trackingNumber ? ` with tracking ${answer.fulfillment.trackingNumber}` : ''}.`);
    });
  };
  return (
    <form className="panel stack" onSubmit={submit} aria-label="Fulfil">
      <h2 className="first">Fulfil</h2>
      <Problem refusal={refusal} shown={['carrier', 'trackingNumber', 'trackingUrl', 'lines']} />
      {lines.map((l, i) => (
        <Field key={l.id} label={`${l.name}${optionsText(l) ? ` (${optionsText(l)})` : ''}: units to ship, of ${left(l)}`} name={`lines.${i}.quantity`} also={i === 0 ? ['lines'] : []} refusal={refusal}>
          <input name={`ship-${i}`} type="number" min={0} max={left(l)} value={units[l.id] ?? ''} onChange={(e) => setUnits({ ...units, [l.id]: e.target.value })} />
        </Field>
      ))}
      <Field label="Carrier" name="carrier" refusal={refusal}><input name="carrier" value={form.carrier} onChange={(e) => setForm({ ...form, carrier: e.target.value })} placeholder="DHL" /></Field>
      <Field label="Tracking number" name="trackingNumber" refusal={refusal}><input name="trackingNumber" value={form.trackingNumber} onChange={(e) => setForm({ ...form, trackingNumber: e.target.value })} /></Field>
      <Field label="Tracking link" name="trackingUrl" refusal={refusal}><input name="trackingUrl" type="text" inputMode="url" value={form.trackingUrl} onChange={(e) => setForm({ ...form, trackingUrl: e.target.value })} placeholder="https://" /></Field>
      <button className="primary" disabled={busy}>Fulfil</button>
    </form>
  );
}

function RefundForm({ order, balance, onDone }: { order: Order; balance: number; onDone: Done }) {
  const [form, setForm] = useState({ amount: money(balance), reason: '', restock: false });
  const [units, setUnits] = useState<Record<string, string>>({});
  const { refusal, busy, run } = useAction();
  // One key per refund attempt: a retry after no answer cannot give the money back twice.
  const key = useRef(newKey());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const lines = order.products.map((l) => ({ productId: l.id, quantity: Number(units[l.id] || 0) })).filter((l) => l.quantity !== 0);
      const body = { amount: toCents(form.amount), ...(form.reason.trim() ? { reason: form.reason.trim() } : {}), ...(form.restock ? { restock: true, lines } : lines.length ? { lines } : {}) };
      try {
        const answer = ok(await api.POST('/api/v1/admin/orders/{id}/refunds', { params: { path: { id: order.id }, header: { 'Idempotency-Key': key.current } }, body }));
        key.current = newKey();
        onDone(answer.order, `Refunded ${money(answer.refund.amount)} ${order.currency}.`);
      } catch (error) {
        if (error instanceof Refusal && error.problem.status > 0) key.current = newKey();
        throw error;
      }
    });
  };
  return (
    <form className="panel stack" onSubmit={submit} aria-label="Refund">
      <h2 className="first">Refund</h2>
      <p className="muted">Up to {money(balance)} {order.currency}, back through the order's payments.</p>
      <Problem refusal={refusal} shown={['amount', 'reason', 'lines', 'restock']} />
      <Field label="Amount" name="amount" refusal={refusal}><input name="amount" inputMode="decimal" required value={form.amount} onChange={(e) => setForm({ ...form, amount: e.target.value })} /></Field>
      <Field label="Reason" name="reason" refusal={refusal}><input name="reason" value={form.reason} onChange={(e) => setForm({ ...form, reason: e.target.value })} placeholder="Damaged in transit" /></Field>
      <label className="check"><input type="checkbox" name="restock" checked={form.restock} onChange={(e) => setForm({ ...form, restock: e.target.checked })} /> Items returned: put them back in stock</label>
      {form.restock && order.products.map((l, i) => (
        <Field key={l.id} label={`${l.name}: units returned, of ${l.order.quantity}`} name={`lines.${i}.quantity`} also={i === 0 ? ['lines'] : []} refusal={refusal}>
          <input name={`return-${i}`} type="number" min={0} max={l.order.quantity} value={units[l.id] ?? ''} onChange={(e) => setUnits({ ...units, [l.id]: e.target.value })} />
        </Field>
      ))}
      <button className="primary" disabled={busy}>Refund</button>
    </form>
  );
}

function Cancel({ order, onDone }: { order: Order; onDone: Done }) {
  const [sure, setSure] = useState(false);
  const { refusal, busy, run } = useAction();
  const cancel = () => run(async () => onDone(ok(await api.PATCH('/api/v1/admin/orders/{id}', { params: { path: { id: order.id } }, body: { status: 'CANCELLED' } })).order, 'Order cancelled.'));
  return (
    <section className="panel" aria-label="Cancel order">
      <h2 className="first">Cancel</h2>
      <p className="muted">Puts the stock and the discount use back{order.paidTotal > 0 ? ' and refunds what was paid' : ''}.</p>
      <Problem refusal={refusal} />
      {sure ? (
        <div className="row"><button className="danger" disabled={busy} onClick={cancel}>Yes, cancel order #{order.number}</button><button onClick={() => setSure(false)}>Keep it</button></div>
      ) : <button className="danger" onClick={() => setSure(true)}>Cancel order</button>}
    </section>
  );
}
