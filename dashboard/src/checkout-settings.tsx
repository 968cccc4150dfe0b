/**
 * What checkout charges and how it is paid: shipping options and tax rates (staff work: list,
 * create, edit, delete), and payment providers (owners only; a secret is written, never shown).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ok, type Schemas } from './api.js';
import { Field, money, Problem, toCents, useAction, when } from './ui.js';

type ShippingOption = Schemas['ShippingOption'];
type TaxRate = Schemas['TaxRate'];
type PaymentProvider = Schemas['PaymentProvider'];

const countriesOf = (text: string) => text.split(/[\s,]+/).map((c) => c.trim().toUpperCase()).filter(Boolean);
/** Basis points as a percentage people write ("8.25"), and back. */
const percent = (basisPoints: number) => (basisPoints / 100).toFixed(2).replace(/\.?0+$/, '');
const toBasisPoints = (text: string) => (text.trim() === '' ? Number.NaN : Math.round(Number(text.replace(',', '.')) * 100));

const EMPTY_OPTION = { name: '', price: '', countries: '', freeAbove: '', minSubtotal: '', active: true };

export function ShippingOptions() {
  const [list, setList] = useState<ShippingOption[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const [form, setForm] = useState(EMPTY_OPTION);
  const [notice, setNotice] = useState('');
  const { refusal, busy, run } = useAction();
  const load = useCallback(async () => setList(ok(await api.GET('/api/v1/admin/shipping-options', { params: { query: { limit: 250 } } })).shippingOptions), []);
  useEffect(() => void run(load), [run, load]);
  const edit = (o: ShippingOption | null) => {
    setNotice('');
    setEditing(o?.id ?? null);
    setForm(o ? { name: o.name, price: money(o.price), countries: o.countries.join(', '), freeAbove: money(o.freeAbove), minSubtotal: o.minSubtotal ? money(o.minSubtotal) : '', active: o.active } : EMPTY_OPTION);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const body = { name: form.name, price: toCents(form.price), countries: countriesOf(form.countries), freeAbove: form.freeAbove.trim() ? toCents(form.freeAbove) : null, minSubtotal: form.minSubtotal.trim() ? toCents(form.minSubtotal) : 0, active: form.active };
      if (editing) ok(await api.PATCH('/api/v1/admin/shipping-options/{id}', { params: { path: { id: editing } }, body }));
      else ok(await api.POST('/api/v1/admin/shipping-options', { body }));
      setNotice(editing ? `Saved ${form.name}.` : `Added ${form.name}.`);
      edit(null);
      await load();
    });
  };
  const remove = (o: ShippingOption) => run(async () => { ok(await api.DELETE('/api/v1/admin/shipping-options/{id}', { params: { path: { id: o.id } } })); setNotice(`Deleted ${o.name}.`); edit(null); await load(); });
  const set = (key: keyof typeof EMPTY_OPTION) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <>
      <h1>Shipping options</h1>
      <p className="muted">What a shopper may choose at checkout. An option applies to the listed countries (none: every country) from its minimum subtotal on, and costs nothing from its free-above subtotal on.</p>
      {notice && <div className="notice" role="status">{notice}</div>}
      <div className="table-wrap">
        <table>
          <thead><tr><th>Name</th><th className="num">Price</th><th>Countries</th><th className="num hide-narrow">Free above</th><th className="num hide-narrow">Min. subtotal</th><th>State</th><th></th></tr></thead>
          <tbody>{list.length === 0 ? <tr><td colSpan={7} className="muted">No shipping option yet: orders need none until there is one.</td></tr> : list.map((o) => (
            <tr key={o.id} aria-current={editing === o.id ? 'true' : undefined}>
              <td>{o.name}</td><td className="num">{money(o.price)}</td><td>{o.countries.join(', ') || 'every country'}</td><td className="num hide-narrow">{o.freeAbove == null ? '' : money(o.freeAbove)}</td>
              <td className="num hide-narrow">{o.minSubtotal ? money(o.minSubtotal) : ''}</td><td><span className={`badge ${o.active ? 'active' : 'off'}`}>{o.active ? 'active' : 'off'}</span></td>
              <td><button type="button" onClick={() => edit(o)} aria-label={`Edit ${o.name}`}>Edit</button></td>
            </tr>
          ))}</tbody>
        </table>
      </div>
      <form className="panel" onSubmit={submit} aria-label={editing ? 'Edit shipping option' : 'New shipping option'}>
        <h2 className="first">{editing ? `Edit ${list.find((o) => o.id === editing)?.name ?? ''}` : 'New shipping option'}</h2>
        <Problem refusal={refusal} shown={['name', 'price', 'countries', 'freeAbove', 'minSubtotal', 'active']} />
        <div className="grid2">
          <Field label="Name" name="name" refusal={refusal}><input name="name" required value={form.name} onChange={set('name')} placeholder="Standard" /></Field>
          <Field label="Price" name="price" refusal={refusal}><input name="price" inputMode="decimal" required value={form.price} onChange={set('price')} placeholder="4.90" /></Field>
          <Field label="Countries (codes, comma-separated; empty: all)" name="countries" refusal={refusal}><input name="countries" value={form.countries} onChange={set('countries')} placeholder="DE, AT, CH" /></Field>
          <Field label="Free above (subtotal; empty: never)" name="freeAbove" refusal={refusal}><input name="freeAbove" inputMode="decimal" value={form.freeAbove} onChange={set('freeAbove')} /></Field>
          <Field label="Minimum subtotal" name="minSubtotal" refusal={refusal}><input name="minSubtotal" inputMode="decimal" value={form.minSubtotal} onChange={set('minSubtotal')} placeholder="0.00" /></Field>
          <label className="check"><input type="checkbox" name="active" checked={form.active} onChange={(e) => setForm({ ...form, active: e.target.checked })} /> Offered at checkout</label>
        </div>
        <div className="row actions">
          <button className="primary" disabled={busy}>{editing ? 'Save option' : 'Add option'}</button>
          {editing && <button type="button" onClick={() => edit(null)}>Stop editing</button>}
          {editing && <button type="button" className="danger" disabled={busy} onClick={() => remove(list.find((o) => o.id === editing)!)}>Delete</button>}
        </div>
      </form>
    </>
  );
}

const EMPTY_RATE = { country: '', region: '', category: '', rate: '', name: '' };

export function TaxRates() {
  const [list, setList] = useState<TaxRate[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const [form, setForm] = useState(EMPTY_RATE);
  const [notice, setNotice] = useState('');
  const { refusal, busy, run } = useAction();
  const load = useCallback(async () => setList(ok(await api.GET('/api/v1/admin/tax-rates', { params: { query: { limit: 250 } } })).taxRates), []);
  useEffect(() => void run(load), [run, load]);
  const edit = (r: TaxRate | null) => {
    setNotice('');
    setEditing(r?.id ?? null);
    setForm(r ? { country: r.country, region: r.region ?? '', category: r.category ?? '', rate: percent(r.rate), name: r.name } : EMPTY_RATE);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const body = { country: form.country.trim(), region: form.region.trim() || null, category: form.category.trim() || null, rate: toBasisPoints(form.rate), name: form.name };
      if (editing) ok(await api.PATCH('/api/v1/admin/tax-rates/{id}', { params: { path: { id: editing } }, body }));
      else ok(await api.POST('/api/v1/admin/tax-rates', { body }));
      setNotice(editing ? `Saved ${form.name}.` : `Added ${form.name}.`);
      edit(null);
      await load();
    });
  };
  const remove = (r: TaxRate) => run(async () => { ok(await api.DELETE('/api/v1/admin/tax-rates/{id}', { params: { path: { id: r.id } } })); setNotice(`Deleted ${r.name}.`); edit(null); await load(); });
  const set = (key: keyof typeof EMPTY_RATE) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <>
      <h1>Tax rates</h1>
      <p className="muted">The rate of an address's country, or of its region (the address's state) when there is one; a category applies to products with that tax category.</p>
      {notice && <div className="notice" role="status">{notice}</div>}
      <div className="table-wrap">
        <table>
          <thead><tr><th>Name</th><th>Country</th><th>Region</th><th className="hide-narrow">Category</th><th className="num">Rate</th><th></th></tr></thead>
          <tbody>{list.length === 0 ? <tr><td colSpan={6} className="muted">No tax rate yet: orders are charged no tax.</td></tr> : list.map((r) => (
            <tr key={r.id} aria-current={editing === r.id ? 'true' : undefined}>
              <td>{r.name}</td><td>{r.country}</td><td>{r.region ?? 'whole country'}</td><td className="hide-narrow">{r.category ?? 'general'}</td><td className="num">{percent(r.rate)} %</td>
              <td><button type="button" onClick={() => edit(r)} aria-label={`Edit ${r.name} ${r.country}${r.region ? ` ${r.region}` : ''}`}>Edit</button></td>
            </tr>
          ))}</tbody>
        </table>
      </div>
      <form className="panel" onSubmit={submit} aria-label={editing ? 'Edit tax rate' : 'New tax rate'}>
        <h2 className="first">{editing ? 'Edit tax rate' : 'New tax rate'}</h2>
        <Problem refusal={refusal} shown={['country', 'region', 'category', 'rate', 'name']} />
        <div className="grid2">
          <Field label="Name (what the tax line says)" name="name" refusal={refusal}><input name="name" required value={form.name} onChange={set('name')} placeholder="VAT" /></Field>
          <Field label="Country (2-letter code)" name="country" refusal={refusal}><input name="country" required value={form.country} onChange={set('country')} placeholder="DE" autoCapitalize="characters" /></Field>
          <Field label="Region (empty: whole country)" name="region" refusal={refusal}><input name="region" value={form.region} onChange={set('region')} placeholder="TX" /></Field>
          <Field label="Category (empty: general)" name="category" refusal={refusal}><input name="category" value={form.category} onChange={set('category')} placeholder="books" /></Field>
          <Field label="Rate (%)" name="rate" refusal={refusal}><input name="rate" inputMode="decimal" required value={form.rate} onChange={set('rate')} placeholder="19" /></Field>
        </div>
        <div className="row actions">
          <button className="primary" disabled={busy}>{editing ? 'Save rate' : 'Add rate'}</button>
          {editing && <button type="button" onClick={() => edit(null)}>Stop editing</button>}
          {editing && <button type="button" className="danger" disabled={busy} onClick={() => remove(list.find((r) => r.id === editing)!)}>Delete</button>}
        </div>
      </form>
    </>
  );
}

export function PaymentProviders() {
  const [list, setList] = useState<PaymentProvider[]>([]);
  const [manual, setManual] = useState('');
  const [stripe, setStripe] = useState({ secretKey: '', publishableKey: '', webhookSecret: '', captureMethod: 'automatic' as 'automatic' | 'manual' });
  const [notice, setNotice] = useState('');
  const manualAction = useAction();
  const stripeAction = useAction();
  const load = useCallback(async () => {
    const providers = ok(await api.GET('/api/v1/admin/payment-providers')).paymentProviders;
    setList(providers);
    return providers;
  }, []);
  useEffect(() => void manualAction.run(async () => {
    const providers = await load();
    setManual(providers.find((p) => p.name === 'manual')?.instructions ?? '');
    const current = providers.find((p) => p.name === 'stripe');
    if (current) setStripe((s) => ({ ...s, publishableKey: current.publishableKey ?? '', captureMethod: current.captureMethod }));
  }), [manualAction.run, load]);
  const saveManual = (e: FormEvent) => {
    e.preventDefault();
    manualAction.run(async () => { ok(await api.PUT('/api/v1/admin/payment-providers/manual', { body: { instructions: manual } })); setNotice('Manual payments are on.'); await load(); });
  };
  const saveStripe = (e: FormEvent) => {
    e.preventDefault();
    stripeAction.run(async () => {
      ok(await api.PUT('/api/v1/admin/payment-providers/stripe', { body: stripe }));
      // The secrets leave the page once sent: they are never shown again.
      setStripe({ ...stripe, secretKey: '', webhookSecret: '' });
      setNotice('Stripe is on.');
      await load();
    });
  };
  const disable = (name: 'manual' | 'stripe', action: ReturnType<typeof useAction>) =>
    action.run(async () => { ok(await api.DELETE('/api/v1/admin/payment-providers/{name}', { params: { path: { name } } })); setNotice(`${name === 'manual' ? 'Manual payments' : 'Stripe'} turned off.`); await load(); });
  const state = (name: string) => list.find((p) => p.name === name);
  const badge = (p: PaymentProvider | undefined) => <span className={`badge ${p?.enabled ? 'active' : 'off'}`}>{p?.enabled ? 'on' : 'off'}</span>;
  const stripeNow = state('stripe');
  return (
    <>
      <h1>Payment providers</h1>
      {notice && <div className="notice" role="status">{notice}</div>}
      <form className="panel" onSubmit={saveManual} aria-label="Manual payments">
        <h2 className="first">Manual payments {badge(state('manual'))}</h2>
        <p className="muted">Cash on delivery, bank transfer: the shopper is told how to pay, and you mark the order as paid.</p>
        <Problem refusal={manualAction.refusal} shown={['instructions']} />
        <Field label="Instructions shown to the shopper" name="instructions" refusal={manualAction.refusal}><textarea name="instructions" rows={2} value={manual} onChange={(e) => setManual(e.target.value)} placeholder="Pay on delivery" /></Field>
        <div className="row actions">
          <button className="primary" disabled={manualAction.busy}>{state('manual')?.enabled ? 'Save' : 'Turn on'}</button>
          {state('manual')?.enabled && <button type="button" className="danger" onClick={() => disable('manual', manualAction)}>Turn off</button>}
        </div>
      </form>
      <form className="panel" onSubmit={saveStripe} aria-label="Stripe" autoComplete="off">
        <h2 className="first">Stripe {badge(stripeNow)}</h2>
        {stripeNow?.enabled && (
          <p className="muted">Secret key ending in <code>{stripeNow.secretKeyLast4}</code>, updated {when(stripeNow.updatedAt ?? stripeNow.createdAt)}. Register this webhook endpoint at Stripe: <code>{stripeNow.webhookUrl}</code></p>
        )}
        <p className="muted">The secret key and the webhook signing secret are stored encrypted and never shown again: enter both to change any setting.</p>
        <Problem refusal={stripeAction.refusal} shown={['secretKey', 'publishableKey', 'webhookSecret', 'captureMethod']} />
        <div className="grid2">
          <Field label="Secret key" name="secretKey" refusal={stripeAction.refusal}><input name="secretKey" type="password" autoComplete="off" required value={stripe.secretKey} onChange={(e) => setStripe({ ...stripe, secretKey: e.target.value })} placeholder={stripeNow?.secretKeyLast4 ? `sk_…${stripeNow.secretKeyLast4}` : 'sk_live_…'} /></Field>
          <Field label="Publishable key" name="publishableKey" refusal={stripeAction.refusal}><input name="publishableKey" required value={stripe.publishableKey} onChange={(e) => setStripe({ ...stripe, publishableKey: e.target.value })} placeholder="pk_live_…" /></Field>
          <Field label="Webhook signing secret" name="webhookSecret" refusal={stripeAction.refusal}><input name="webhookSecret" type="password" autoComplete="off" required value={stripe.webhookSecret} onChange={(e) => setStripe({ ...stripe, webhookSecret: e.target.value })} placeholder="whsec_…" /></Field>
          <Field label="Capture" name="captureMethod" refusal={stripeAction.refusal}>
            <select name="captureMethod" value={stripe.captureMethod} onChange={(e) => setStripe({ ...stripe, captureMethod: e.target.value as 'automatic' })}>
              <option value="automatic">When the shopper pays</option><option value="manual">At the first shipment</option>
            </select>
          </Field>
        </div>
        <div className="row actions">
          <button className="primary" disabled={stripeAction.busy}>{stripeNow?.enabled ? 'Save' : 'Turn on'}</button>
          {stripeNow?.enabled && <button type="button" className="danger" onClick={() => disable('stripe', stripeAction)}>Turn off</button>}
        </div>
      </form>
    </>
  );
}
