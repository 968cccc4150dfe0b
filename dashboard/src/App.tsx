/**
 * The merchant's dashboard: one page, hash routes (#/products, #/orders/<id>, ...), every call
 * through the typed client with the staff session. Refusals are shown in words beside the field
 * they name (`problem.errors[].field`), or above the form when they name none.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ok, savedSession, saveSession, whenSignedOut, type Schemas, type Session } from './api.js';
import { PaymentProviders, ShippingOptions, TaxRates } from './checkout-settings.js';
import { OrderDetail, Orders } from './orders.js';
import { ProductEditor, Products } from './products.js';
import { Field, go, money, Problem, slugify, toCents, useAction, useHash } from './ui.js';

export function App() {
  const [session, setSession] = useState<Session | null>(savedSession());
  const hash = useHash();
  useEffect(() => whenSignedOut(() => { saveSession(null); setSession(null); }), []);
  if (hash.startsWith('/accept')) return <Accept onSession={(s) => { saveSession(s); setSession(s); go('/products'); }} />;
  if (!session) return <SignIn onSession={(s) => { saveSession(s); setSession(s); }} />;
  const [, section = 'products', id] = hash.split('/');
  const links = [
    ['products', 'Products'], ['collections', 'Collections'], ['orders', 'Orders'], ['discounts', 'Discount codes'], ['shipping', 'Shipping'], ['taxes', 'Taxes'],
    ...(session.role === 'owner' ? [['payments', 'Payments'], ['webhooks', 'Webhooks'], ['staff', 'Staff']] : []),
  ];
  const signOut = async () => {
    await api.DELETE('/api/v1/staff/sessions/current');
    saveSession(null);
    setSession(null);
  };
  return (
    <div className="shell">
      <nav className="side" aria-label="Sections">
        <div className="brand">{session.store}</div>
        {links.map(([key, label]) => (
          <a key={key} href={`#/${key}`} aria-current={section === key ? 'page' : undefined}>{label}</a>
        ))}
        <div className="who">
          {session.email} ({session.role})<br />
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </nav>
      <main>
        {section === 'products' && (id ? <ProductEditor id={id === 'new' ? null : id} /> : <Products />)}
        {section === 'collections' && <Collections />}
        {section === 'orders' && (id ? <OrderDetail id={id} /> : <Orders />)}
        {section === 'discounts' && <Discounts />}
        {section === 'shipping' && <ShippingOptions />}
        {section === 'taxes' && <TaxRates />}
        {section === 'payments' && <PaymentProviders />}
        {section === 'webhooks' && <Webhooks />}
        {section === 'staff' && <Staff session={session} />}
      </main>
    </div>
  );
}

function sessionOf(answer: { session: { store: string; email: string; role: 'owner' | 'staff'; expiresAt: string }; secret: string }): Session {
  return { secret: answer.secret, store: answer.session.store, email: answer.session.email, role: answer.session.role, expiresAt: answer.session.expiresAt };
}

function SignIn({ onSession }: { onSession: (s: Session) => void }) {
  const { refusal, busy, run } = useAction();
  const [form, setForm] = useState({ store: new URLSearchParams(location.search).get('store') ?? '', email: '', password: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => onSession(sessionOf(ok(await api.POST('/api/v1/staff/sessions', { body: form })))));
  };
  return (
    <form className="panel signin" onSubmit={submit} aria-label="Sign in">
      <h1>Sign in</h1>
      <Problem refusal={refusal} shown={['store', 'email', 'password']} />
      <div className="grid2" style={{ gridTemplateColumns: '1fr' }}>
        <Field label="Store" name="store" refusal={refusal}><input name="store" autoComplete="organization" required value={form.store} onChange={(e) => setForm({ ...form, store: e.target.value })} /></Field>
        <Field label="Email" name="email" refusal={refusal}><input name="email" type="email" autoComplete="username" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} /></Field>
        <Field label="Password" name="password" refusal={refusal}><input name="password" type="password" autoComplete="current-password" required value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} /></Field>
        <button className="primary" disabled={busy}>Sign in</button>
      </div>
    </form>
  );
}

function Accept({ onSession }: { onSession: (s: Session) => void }) {
  const secret = new URLSearchParams(location.hash.split('?')[1] ?? '').get('secret') ?? '';
  const { refusal, busy, run } = useAction();
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => onSession(sessionOf(ok(await api.POST('/api/v1/staff/invitations/accept', { body: { secret, password } })))));
  };
  return (
    <form className="panel signin" onSubmit={submit} aria-label="Accept invitation">
      <h1>Choose a password</h1>
      <Problem refusal={refusal} shown={['password']} />
      <Field label="Password (12 characters or more)" name="password" refusal={refusal}>
        <input name="password" type="password" autoComplete="new-password" minLength={12} required value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <p><button className="primary" disabled={busy}>Start</button></p>
    </form>
  );
}

function Collections() {
  const [list, setList] = useState<Schemas['AdminCollectionList'] | null>(null);
  const [form, setForm] = useState({ name: '', slug: '' });
  const { refusal, busy, run } = useAction();
  const load = useCallback(() => run(async () => setList(ok(await api.GET('/api/v1/admin/collections', { params: { query: { limit: 250 } } })))), [run]);
  useEffect(() => void load(), [load]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      ok(await api.POST('/api/v1/admin/collections', { body: { name: form.name, slug: form.slug || slugify(form.name) } }));
      setForm({ name: '', slug: '' });
      setList(ok(await api.GET('/api/v1/admin/collections', { params: { query: { limit: 250 } } })));
    });
  };
  return (
    <>
      <h1>Collections</h1>
      <form className="panel row" onSubmit={submit} aria-label="New collection">
        <Field label="Name" name="name" refusal={refusal}><input name="name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} /></Field>
        <Field label="Slug" name="slug" refusal={refusal}><input name="slug" placeholder={slugify(form.name)} value={form.slug} onChange={(e) => setForm({ ...form, slug: e.target.value })} /></Field>
        <button className="primary" disabled={busy}>Add collection</button>
      </form>
      <Problem refusal={refusal} shown={['name', 'slug']} />
      <table>
        <thead><tr><th>Name</th><th>Slug</th><th>Products</th><th>State</th></tr></thead>
        <tbody>{list?.collections.map((c) => <tr key={c.id}><td>{c.name}</td><td>{c.slug}</td><td>{(c._count as { products?: number })?.products ?? ''}</td><td>{c.archived ? 'archived' : ''}</td></tr>)}</tbody>
      </table>
    </>
  );
}

function Discounts() {
  const [list, setList] = useState<Schemas['DiscountList'] | null>(null);
  const [form, setForm] = useState({ code: '', type: 'percentage' as 'percentage' | 'fixed', value: '10' });
  const { refusal, busy, run } = useAction();
  const load = useCallback(async () => setList(ok(await api.GET('/api/v1/admin/discounts', { params: { query: { limit: 250 } } }))), []);
  useEffect(() => void run(load), [run, load]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      ok(await api.POST('/api/v1/admin/discounts', { body: { code: form.code, type: form.type, value: form.type === 'fixed' ? toCents(form.value) : Number(form.value) } }));
      setForm({ ...form, code: '' });
      await load();
    });
  };
  return (
    <>
      <h1>Discount codes</h1>
      <form className="panel row" onSubmit={submit} aria-label="New discount code">
        <Field label="Code" name="code" refusal={refusal}><input name="code" required value={form.code} onChange={(e) => setForm({ ...form, code: e.target.value })} /></Field>
        <Field label="Type" name="type" refusal={refusal}><select name="type" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value as 'percentage' })}><option value="percentage">Percent off</option><option value="fixed">Amount off</option></select></Field>
        <Field label={form.type === 'fixed' ? 'Amount' : 'Percent'} name="value" refusal={refusal}><input name="value" inputMode="decimal" required value={form.value} onChange={(e) => setForm({ ...form, value: e.target.value })} /></Field>
        <button className="primary" disabled={busy}>Create code</button>
      </form>
      <Problem refusal={refusal} shown={['code', 'type', 'value']} />
      <table>
        <thead><tr><th>Code</th><th>Off</th><th>Used</th><th>State</th></tr></thead>
        <tbody>{list?.discounts.map((d) => <tr key={d.id}><td>{d.code}</td><td>{d.type === 'percentage' ? `${d.value} %` : money(d.value)}</td><td>{d.usageCount}{d.usageLimit ? ` / ${d.usageLimit}` : ''}</td><td>{d.active ? 'active' : 'off'}</td></tr>)}</tbody>
      </table>
    </>
  );
}

function Webhooks() {
  const [list, setList] = useState<Array<{ id: string; url: string; events: string[]; disabled: boolean }>>([]);
  const [form, setForm] = useState({ url: '', events: '*' });
  const [secret, setSecret] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [deliveries, setDeliveries] = useState<Array<{ id: string; type: string; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null }>>([]);
  const { refusal, busy, run } = useAction();
  const load = useCallback(async () => setList(ok(await api.GET('/api/v1/admin/webhooks')).webhooks), []);
  useEffect(() => void run(load), [run, load]);
  const showDeliveries = (id: string) => run(async () => { setOpen(id); setDeliveries(ok(await api.GET('/api/v1/admin/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 50, offset: 0 } } })).deliveries); });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const created = ok(await api.POST('/api/v1/admin/webhooks', { body: { url: form.url, events: form.events.split(',').map((s) => s.trim()).filter(Boolean) as never } }));
      setSecret(created.secret);
      await load();
    });
  };
  return (
    <>
      <h1>Webhooks</h1>
      <form className="panel row" onSubmit={submit} aria-label="New webhook">
        <Field label="URL (https)" name="url" refusal={refusal}><input name="url" type="url" required value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} /></Field>
        <Field label="Events (comma-separated, * for all)" name="events" refusal={refusal}><input name="events" value={form.events} onChange={(e) => setForm({ ...form, events: e.target.value })} /></Field>
        <button className="primary" disabled={busy}>Add endpoint</button>
      </form>
      {secret && <div className="notice">Signing secret, shown once: <code>{secret}</code></div>}
      <Problem refusal={refusal} shown={['url', 'events']} />
      <table>
        <thead><tr><th>URL</th><th>Events</th><th>State</th><th></th></tr></thead>
        <tbody>{list.map((w) => <tr key={w.id}><td>{w.url}</td><td>{w.events.join(', ')}</td><td>{w.disabled ? 'disabled' : 'on'}</td><td><button onClick={() => showDeliveries(w.id)}>Delivery log</button></td></tr>)}</tbody>
      </table>
      {open && (
        <>
          <h2>Deliveries</h2>
          <table>
            <thead><tr><th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th></th></tr></thead>
            <tbody>{deliveries.map((d) => (
              <tr key={d.id}><td>{d.type}</td><td><span className={`badge ${d.status}`}>{d.status}</span></td><td>{d.attempts}</td><td>{d.lastStatusCode ?? d.lastError ?? ''}</td>
                <td>{d.status === 'failed' && <button onClick={() => run(async () => { ok(await api.POST('/api/v1/admin/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: open, deliveryId: d.id } } })); await showDeliveries(open); })}>Retry</button>}</td></tr>
            ))}</tbody>
          </table>
        </>
      )}
    </>
  );
}

function Staff({ session }: { session: Session }) {
  const [list, setList] = useState<Array<{ id: string; email: string; role: 'owner' | 'staff'; status: string; lastSignInAt: string | null }>>([]);
  const [form, setForm] = useState({ email: '', role: 'staff' as 'owner' | 'staff' });
  const [invitation, setInvitation] = useState('');
  const { refusal, busy, run } = useAction();
  const load = useCallback(async () => setList(ok(await api.GET('/api/v1/admin/staff')).staff), []);
  useEffect(() => void run(load), [run, load]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const created = ok(await api.POST('/api/v1/admin/staff', { body: form }));
      setInvitation(`${location.origin}${created.invitation.url}`);
      setForm({ ...form, email: '' });
      await load();
    });
  };
  const patch = (id: string, body: { role?: 'owner' | 'staff'; disabled?: boolean }) => run(async () => { ok(await api.PATCH('/api/v1/admin/staff/{id}', { params: { path: { id } }, body })); await load(); });
  return (
    <>
      <h1>Staff</h1>
      <form className="panel row" onSubmit={submit} aria-label="Invite">
        <Field label="Email" name="email" refusal={refusal}><input name="email" type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} /></Field>
        <Field label="Role" name="role" refusal={refusal}><select name="role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as 'staff' })}><option value="staff">Staff</option><option value="owner">Owner</option></select></Field>
        <button className="primary" disabled={busy}>Invite</button>
      </form>
      {invitation && <div className="notice">Hand this link over (it works once, for 7 days): <code>{invitation}</code></div>}
      <Problem refusal={refusal} shown={['email', 'role']} />
      <table>
        <thead><tr><th>Email</th><th>Role</th><th>Status</th><th className="hide-narrow">Last sign-in</th><th></th></tr></thead>
        <tbody>{list.map((p) => (
          <tr key={p.id}>
            <td>{p.email}{p.email === session.email && <span className="muted"> (you)</span>}</td>
            <td><select aria-label={`Role of ${p.email}`} value={p.role} onChange={(e) => patch(p.id, { role: e.target.value as 'staff' })}><option value="staff">Staff</option><option value="owner">Owner</option></select></td>
            <td><span className={`badge ${p.status}`}>{p.status}</span></td>
            <td className="hide-narrow">{p.lastSignInAt ? new Date(p.lastSignInAt).toLocaleString() : ''}</td>
            <td>{p.status === 'disabled' ? <button onClick={() => patch(p.id, { disabled: false })}>Enable</button> : <button className="danger" onClick={() => patch(p.id, { disabled: true })}>Disable</button>}</td>
          </tr>
        ))}</tbody>
      </table>
    </>
  );
}
