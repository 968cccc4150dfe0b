/**
 * The merchant's dashboard: one page, hash routes (#/products, #/orders/<id>, ...), every call
 * through the typed client with the staff session. Refusals are shown in words beside the field
 * they name (`problem.errors[].field`), or above the form when they name none.
 */
import { useCallback, useEffect, useState, type DragEvent, type FormEvent, type ReactNode } from 'react';
import { api, ok, Refusal, savedSession, saveSession, uploadImage, whenSignedOut, type Schemas, type Session } from './api.js';

type Product = Schemas['AdminProduct'];
type Order = Schemas['Order'];

function useHash(): string {
  const [hash, setHash] = useState(location.hash.slice(1) || '/products');
  useEffect(() => {
    const on = () => setHash(location.hash.slice(1) || '/products');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}
const go = (path: string) => (location.hash = path);

/** Runs a request, keeping its refusal for the form to show. */
function useAction() {
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setRefusal(null);
    try {
      await work();
    } catch (error) {
      setRefusal(error instanceof Refusal ? error : new Refusal({ detail: String(error), code: 'CLIENT', status: 0, title: '', type: '' } as never));
    } finally {
      setBusy(false);
    }
  }, []);
  return { refusal, busy, run };
}

function Field(props: { label: string; name: string; refusal: Refusal | null; children: ReactNode }) {
  const message = props.refusal?.field(props.name);
  return (
    <label>
      {props.label}
      {props.children}
      {message && <span className="field-error" role="alert" id={`${props.name}-error`}>{message}</span>}
    </label>
  );
}

function Problem({ refusal }: { refusal: Refusal | null }) {
  if (!refusal) return null;
  const listed = (refusal.problem.errors ?? []).filter((e) => !('field' in e));
  return (
    <div className="error" role="alert">
      {refusal.problem.detail}
      {listed.length > 0 && <ul>{listed.map((e, i) => <li key={i}>{JSON.stringify(e)}</li>)}</ul>}
    </div>
  );
}

const money = (cents: number | null | undefined) => (cents == null ? '' : (cents / 100).toFixed(2));
const toCents = (text: string) => Math.round(Number(text.replace(',', '.')) * 100);
const slugify = (text: string) => text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);

export function App() {
  const [session, setSession] = useState<Session | null>(savedSession());
  const hash = useHash();
  useEffect(() => whenSignedOut(() => { saveSession(null); setSession(null); }), []);
  if (hash.startsWith('/accept')) return <Accept onSession={(s) => { saveSession(s); setSession(s); go('/products'); }} />;
  if (!session) return <SignIn onSession={(s) => { saveSession(s); setSession(s); }} />;
  const [, section = 'products', id] = hash.split('/');
  const links = [['products', 'Products'], ['collections', 'Collections'], ['orders', 'Orders'], ['discounts', 'Discount codes'], ...(session.role === 'owner' ? [['webhooks', 'Webhooks'], ['staff', 'Staff']] : [])];
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
      <Problem refusal={refusal} />
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
      <Problem refusal={refusal} />
      <Field label="Password (12 characters or more)" name="password" refusal={refusal}>
        <input name="password" type="password" autoComplete="new-password" minLength={12} required value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <p><button className="primary" disabled={busy}>Start</button></p>
    </form>
  );
}

const PAGE = 25;

function Products() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<'' | 'ACTIVE' | 'DRAFT'>('');
  // Cursor paging: each page starts after the last row of the one before, as fast at row 100,000 as at row 1.
  const [cursors, setCursors] = useState<string[]>([]);
  const [list, setList] = useState<{ products: Product[]; total: number; nextCursor: string | null } | null>(null);
  const { refusal, run } = useAction();
  const after = cursors.at(-1);
  useEffect(() => {
    run(async () => setList(ok(await api.GET('/api/v1/admin/products', { params: { query: { limit: PAGE, ...(after ? { after } : {}), ...(q ? { q } : {}), ...(status ? { status } : {}) } } }))));
  }, [q, status, after, run]);
  const first = cursors.length * PAGE;
  return (
    <>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h1>Products</h1>
        <button className="primary" onClick={() => go('/products/new')}>New product</button>
      </div>
      <div className="panel row" role="search">
        <label style={{ flex: 1 }}>Search<input type="search" name="q" placeholder="Name, SKU, option…" value={q} onChange={(e) => { setCursors([]); setQ(e.target.value); }} /></label>
        <label>Status
          <select name="status" value={status} onChange={(e) => { setCursors([]); setStatus(e.target.value as typeof status); }}>
            <option value="">Any</option><option value="ACTIVE">Active</option><option value="DRAFT">Draft</option>
          </select>
        </label>
      </div>
      <Problem refusal={refusal} />
      <div className="table-wrap">
        <table data-page={cursors.length + 1}>
          <thead><tr><th>Name</th><th className="hide-narrow">SKU</th><th>Price</th><th>Stock</th><th>Status</th></tr></thead>
          <tbody>
            {list?.products.map((p) => (
              <tr key={p.id} className="link" tabIndex={0} onClick={() => go(`/products/${p.id}`)} onKeyDown={(e) => e.key === 'Enter' && go(`/products/${p.id}`)}>
                <td>{p.name}{Object.keys(p.options ?? {}).length > 0 && <div className="muted">{Object.entries(p.options).map(([k, v]) => `${k}: ${v}`).join(', ')}</div>}</td>
                <td className="hide-narrow">{p.sku}</td><td>{money(p.price)}</td><td>{p.quantity}</td><td><span className={`badge ${p.status}`}>{p.status}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list && (
        <div className="pager">
          <button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button>
          <span className="muted">{list.total === 0 ? 'No products' : `${first + 1}–${first + list.products.length} of ${list.total}`}</span>
          <button disabled={!list.nextCursor} onClick={() => list.nextCursor && setCursors([...cursors, list.nextCursor])}>Next</button>
        </div>
      )}
    </>
  );
}

interface VariantRow { value: string; sku: string; price: string; quantity: string }

function Photos({ images, onChange }: { images: Array<{ url: string; alt: string }>; onChange: (images: Array<{ url: string; alt: string }>) => void }) {
  const [over, setOver] = useState(false);
  const { refusal, busy, run } = useAction();
  const add = (files: FileList | null) =>
    run(async () => {
      const added = [];
      for (const file of Array.from(files ?? [])) added.push({ url: (await uploadImage(file)).url, alt: '' });
      onChange([...images, ...added]);
    });
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    add(e.dataTransfer.files);
  };
  return (
    <div>
      <div className={`drop${over ? ' over' : ''}`} onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={onDrop}>
        Drop photos here (JPEG, PNG, WebP, AVIF; 10 MB at most) or{' '}
        <label style={{ display: 'inline' }}><u>choose files</u><input type="file" name="photos" accept="image/jpeg,image/png,image/webp,image/avif" multiple hidden={false} style={{ width: 1, height: 1, opacity: 0 }} onChange={(e) => add(e.target.files)} /></label>
        {busy && <div className="muted">Uploading…</div>}
      </div>
      <Problem refusal={refusal} />
      <div className="thumbs">
        {images.map((image, i) => (
          <figure key={image.url + i}>
            <img src={image.url.startsWith('/api/images/') && image.url.split('/').length === 5 ? `${image.url}?w=160` : image.url} alt={image.alt || `photo ${i + 1}`} />
            <button type="button" aria-label={`Remove photo ${i + 1}`} onClick={() => onChange(images.filter((_, j) => j !== i))}>Remove</button>
          </figure>
        ))}
      </div>
    </div>
  );
}

function ProductEditor({ id }: { id: string | null }) {
  const [form, setForm] = useState({ name: '', slug: '', sku: '', price: '', quantity: '0', status: 'DRAFT' as 'DRAFT' | 'ACTIVE', description: '', group: '', options: '' });
  const [images, setImages] = useState<Array<{ url: string; alt: string }>>([]);
  const [optionName, setOptionName] = useState('Size');
  const [variants, setVariants] = useState<VariantRow[]>([]);
  const [saved, setSaved] = useState('');
  const { refusal, busy, run } = useAction();
  useEffect(() => {
    if (!id) return;
    run(async () => {
      const { product } = ok(await api.GET('/api/v1/admin/products/{id}', { params: { path: { id } } }));
      setForm({ name: product.name, slug: product.slug, sku: product.sku, price: money(product.price), quantity: String(product.quantity), status: product.status as 'DRAFT' | 'ACTIVE', description: product.description ?? '', group: product.group ?? '', options: Object.entries(product.options ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') });
      setImages(product.images.map((i) => ({ url: i.url, alt: i.alt ?? '' })));
    });
  }, [id, run]);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value, ...(key === 'name' && !id && !form.slug ? {} : {}) });
  const options = () => Object.fromEntries(form.options.split(',').map((pair) => pair.split('=').map((s) => s.trim())).filter(([k, v]) => k && v));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved('');
    run(async () => {
      const base = { name: form.name, sku: form.sku, price: toCents(form.price), quantity: Number(form.quantity), status: form.status, description: form.description, images };
      if (id) {
        ok(await api.PATCH('/api/v1/admin/products/{id}', { params: { path: { id } }, body: { ...base, slug: form.slug, group: form.group || null, options: options() } }));
        setSaved('Saved.');
        return;
      }
      const slug = form.slug || slugify(form.name);
      if (variants.length === 0) {
        const { product } = ok(await api.POST('/api/v1/admin/products', { body: { ...base, slug, ...(form.group ? { group: form.group } : {}), options: options() } }));
        go(`/products/${product.id}`);
        return;
      }
      // Each variant is a product of the group (docs/variants.md): its own slug, SKU, price and stock.
      for (const v of variants) {
        ok(await api.POST('/api/v1/admin/products', {
          body: { ...base, slug: `${slug}-${slugify(v.value)}`, sku: v.sku || `${form.sku}-${v.value}`, price: v.price ? toCents(v.price) : base.price, quantity: Number(v.quantity || 0), group: slug, options: { [optionName]: v.value } },
        }));
      }
      go('/products');
    });
  };
  return (
    <form onSubmit={submit} aria-label="Product">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h1>{id ? form.name || 'Product' : 'New product'}</h1>
        <div className="row"><a href="#/products">Back to products</a><button className="primary" disabled={busy}>Save</button></div>
      </div>
      <Problem refusal={refusal} />
      {saved && <div className="notice" role="status">{saved}</div>}
      <div className="panel grid2">
        <Field label="Name" name="name" refusal={refusal}><input name="name" required value={form.name} onChange={set('name')} /></Field>
        <Field label="Slug" name="slug" refusal={refusal}><input name="slug" placeholder={slugify(form.name)} value={form.slug} onChange={set('slug')} /></Field>
        <Field label="SKU" name="sku" refusal={refusal}><input name="sku" required value={form.sku} onChange={set('sku')} /></Field>
        <Field label="Price" name="price" refusal={refusal}><input name="price" inputMode="decimal" required value={form.price} onChange={set('price')} /></Field>
        <Field label="Stock" name="quantity" refusal={refusal}><input name="quantity" type="number" min={0} value={form.quantity} onChange={set('quantity')} /></Field>
        <Field label="Status" name="status" refusal={refusal}>
          <select name="status" value={form.status} onChange={set('status')}><option value="DRAFT">Draft</option><option value="ACTIVE">Active</option></select>
        </Field>
        {id && <Field label="Group" name="group" refusal={refusal}><input name="group" value={form.group} onChange={set('group')} /></Field>}
        {id && <Field label="Options (Name=Value, …)" name="options" refusal={refusal}><input name="options" value={form.options} onChange={set('options')} /></Field>}
      </div>
      <div className="panel">
        <Field label="Description (HTML)" name="description" refusal={refusal}><textarea name="description" rows={4} value={form.description} onChange={set('description')} /></Field>
      </div>
      <h2>Photos</h2>
      <div className="panel"><Photos images={images} onChange={setImages} /></div>
      {!id && (
        <>
          <h2>Variants</h2>
          <div className="panel">
            <p className="muted">Leave empty for a single product. Each variant becomes a product of one group, with its own SKU, price and stock.</p>
            <div className="row">
              <label>Option name<input name="optionName" value={optionName} onChange={(e) => setOptionName(e.target.value)} /></label>
              <button type="button" onClick={() => setVariants([...variants, { value: '', sku: '', price: '', quantity: '0' }])}>Add variant</button>
            </div>
            {variants.map((v, i) => (
              <div className="row" key={i} style={{ marginTop: 8 }}>
                {(['value', 'sku', 'price', 'quantity'] as const).map((key) => (
                  <label key={key}>{key === 'value' ? optionName || 'Value' : key === 'quantity' ? 'Stock' : key.toUpperCase() === 'SKU' ? 'SKU' : 'Price'}
                    <input name={`variant-${i}-${key}`} value={v[key]} onChange={(e) => setVariants(variants.map((w, j) => (j === i ? { ...w, [key]: e.target.value } : w)))} />
                  </label>
                ))}
                <button type="button" className="danger" onClick={() => setVariants(variants.filter((_, j) => j !== i))}>Remove</button>
              </div>
            ))}
          </div>
        </>
      )}
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
      <Problem refusal={refusal} />
      <table>
        <thead><tr><th>Name</th><th>Slug</th><th>Products</th><th>State</th></tr></thead>
        <tbody>{list?.collections.map((c) => <tr key={c.id}><td>{c.name}</td><td>{c.slug}</td><td>{(c._count as { products?: number })?.products ?? ''}</td><td>{c.archived ? 'archived' : ''}</td></tr>)}</tbody>
      </table>
    </>
  );
}

const ORDER_STATUSES = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;

function Orders() {
  const [status, setStatus] = useState('');
  const [find, setFind] = useState('');
  const [offset, setOffset] = useState(0);
  const [list, setList] = useState<{ orders: Order[]; total: number } | null>(null);
  const { refusal, run } = useAction();
  useEffect(() => {
    run(async () => setList(ok(await api.GET('/api/v1/admin/orders', { params: { query: { limit: PAGE, offset, ...(status ? { status: status as never } : {}) } } }))));
  }, [status, offset, run]);
  const open = (e: FormEvent) => {
    e.preventDefault();
    go(`/orders/${find.trim()}`);
  };
  return (
    <>
      <h1>Orders</h1>
      <div className="panel row">
        <form className="row" onSubmit={open} role="search" style={{ flex: 1 }}>
          <label style={{ flex: 1 }}>Find an order by its id<input name="find" value={find} onChange={(e) => setFind(e.target.value)} placeholder="order id" /></label>
          <button>Open</button>
        </form>
        <label>Status
          <select name="status" value={status} onChange={(e) => { setOffset(0); setStatus(e.target.value); }}>
            <option value="">Any</option>{ORDER_STATUSES.map((s) => <option key={s}>{s}</option>)}
          </select>
        </label>
      </div>
      <Problem refusal={refusal} />
      <div className="table-wrap">
        <table>
          <thead><tr><th>Order</th><th className="hide-narrow">Placed</th><th>Total</th><th>Status</th></tr></thead>
          <tbody>
            {list?.orders.map((o) => (
              <tr key={o.id} className="link" tabIndex={0} onClick={() => go(`/orders/${o.id}`)} onKeyDown={(e) => e.key === 'Enter' && go(`/orders/${o.id}`)}>
                <td><code>{o.id.slice(0, 8)}</code></td><td className="hide-narrow">{new Date(o.createdAt).toLocaleString()}</td><td>{money(o.total ?? o.price)}</td><td><span className={`badge ${o.status}`}>{o.status}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list && (
        <div className="pager">
          <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
          <span className="muted">{list.total === 0 ? 'No orders' : `${offset + 1}–${offset + list.orders.length} of ${list.total}`}</span>
          <button disabled={offset + PAGE >= list.total} onClick={() => setOffset(offset + PAGE)}>Next</button>
        </div>
      )}
    </>
  );
}

function OrderDetail({ id }: { id: string }) {
  const [order, setOrder] = useState<Order | null>(null);
  const [status, setStatus] = useState('');
  const [changed, setChanged] = useState('');
  const { refusal, busy, run } = useAction();
  useEffect(() => {
    run(async () => {
      const o = ok(await api.GET('/api/v1/admin/orders/{id}', { params: { path: { id } } })).order;
      setOrder(o);
      setStatus(o.status);
    });
  }, [id, run]);
  const change = (e: FormEvent) => {
    e.preventDefault();
    setChanged('');
    run(async () => {
      const updated = ok(await api.PATCH('/api/v1/admin/orders/{id}', { params: { path: { id } }, body: { status: status as never } })).order;
      setOrder(updated);
      setChanged(`Status changed to ${updated.status}.`);
    });
  };
  return (
    <>
      <div className="row" style={{ justifyContent: 'space-between' }}><h1>Order <code>{id.slice(0, 8)}</code></h1><a href="#/orders">Back to orders</a></div>
      <Problem refusal={refusal} />
      {changed && <div className="notice" role="status">{changed}</div>}
      {order && (
        <>
          <div className="panel">
            <div className="muted">Placed {new Date(order.createdAt).toLocaleString()} · customer <code>{order.customerId}</code></div>
            <table>
              <thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>
              <tbody>{order.products.map((line, i) => <tr key={i}><td>{line.name}</td><td>{line.quantity}</td><td>{money(line.price)}</td></tr>)}</tbody>
            </table>
            <p>Subtotal {money(order.price)}{order.discount ? ` · discount ${order.discount.code} −${money(order.discountTotal)}` : ''} · <strong>Total {money(order.total ?? order.price)}</strong></p>
          </div>
          <form className="panel row" onSubmit={change} aria-label="Order status">
            <Field label="Status" name="status" refusal={refusal}>
              <select name="status" value={status} onChange={(e) => setStatus(e.target.value)}>{ORDER_STATUSES.map((s) => <option key={s}>{s}</option>)}</select>
            </Field>
            <button className="primary" disabled={busy || status === order.status}>Change status</button>
          </form>
        </>
      )}
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
      <Problem refusal={refusal} />
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
      <Problem refusal={refusal} />
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
      <Problem refusal={refusal} />
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
