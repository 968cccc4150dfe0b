/** Products: the list (search, status, cursor paging) and the editor (fields, photos, variants saved in one request). */
import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { api, ok, Refusal, uploadImage, type Schemas } from './api.js';
import { GroupVariants } from './group-variants.js';
import { Field, go, money, newKey, PAGE, Problem, slugify, toCents, useAction } from './ui.js';

type Product = Schemas['AdminProduct'];

export function Products() {
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
      <div className="row spread">
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
          <thead><tr><th>Name</th><th className="hide-narrow">SKU</th><th className="num">Price</th><th className="num">Stock</th><th>Status</th></tr></thead>
          <tbody>
            {list?.products.map((p) => (
              <tr key={p.id} className="link" tabIndex={0} onClick={() => go(`/products/${p.id}`)} onKeyDown={(e) => e.key === 'Enter' && go(`/products/${p.id}`)}>
                <td>{p.name}{Object.keys(p.options ?? {}).length > 0 && <div className="muted">{Object.entries(p.options).map(([k, v]) => `${k}: ${v}`).join(', ')}</div>}</td>
                <td className="hide-narrow">{p.sku}</td><td className="num">{money(p.price)}</td><td className="num">{p.quantity}{p.held > 0 && <span className="muted"> ({p.held} held)</span>}</td><td><span className={`badge ${p.status}`}>{p.status}</span></td>
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

const PRODUCT_FIELDS = ['name', 'slug', 'sku', 'price', 'quantity', 'status', 'description', 'group', 'options', 'images'];
/** A variant row's inputs, and the fields of its entry in the save whose refusal shows beside each. */
const VARIANT_INPUTS = [
  { key: 'value', fields: ['options', 'slug'] },
  { key: 'sku', fields: ['sku'] },
  { key: 'price', fields: ['price'] },
  { key: 'quantity', fields: ['quantity'] },
] as const;

export function ProductEditor({ id }: { id: string | null }) {
  const [form, setForm] = useState({ name: '', slug: '', sku: '', price: '', quantity: '0', status: 'DRAFT' as 'DRAFT' | 'ACTIVE', description: '', group: '', options: '' });
  const [images, setImages] = useState<Array<{ url: string; alt: string }>>([]);
  const [optionName, setOptionName] = useState('Size');
  const [variants, setVariants] = useState<VariantRow[]>([]);
  const [saved, setSaved] = useState('');
  // The product as last read or saved: its group's variants are edited below the form.
  const [current, setCurrent] = useState<Product | null>(null);
  const { refusal, busy, run } = useAction();
  // One key per attempt: kept when no answer came (a retry then cannot save twice), new after an answer.
  const saveKey = useRef(newKey());
  useEffect(() => {
    if (!id) return;
    run(async () => {
      const { product } = ok(await api.GET('/api/v1/admin/products/{id}', { params: { path: { id } } }));
      setCurrent(product);
      setForm({ name: product.name, slug: product.slug, sku: product.sku, price: money(product.price), quantity: String(product.quantity), status: product.status as 'DRAFT' | 'ACTIVE', description: product.description ?? '', group: product.group ?? '', options: Object.entries(product.options ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') });
      setImages(product.images.map((i) => ({ url: i.url, alt: i.alt ?? '' })));
    });
  }, [id, run]);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const options = () => Object.fromEntries(form.options.split(',').map((pair) => pair.split('=').map((s) => s.trim())).filter(([k, v]) => k && v));
  /** A main field's refusal also stands for the same field of any variant (they all carry it). */
  const alsoVariants = (key: string) => variants.map((_, i) => `variants.${i}.${key}`);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved('');
    run(async () => {
      const base = { name: form.name, sku: form.sku, price: toCents(form.price), quantity: Number(form.quantity), status: form.status, description: form.description, images };
      if (id) {
        setCurrent(ok(await api.PATCH('/api/v1/admin/products/{id}', { params: { path: { id } }, body: { ...base, slug: form.slug, group: form.group || null, options: options() } })).product);
        setSaved('Saved.');
        return;
      }
      const slug = form.slug || slugify(form.name);
      if (variants.length === 0) {
        const { product } = ok(await api.POST('/api/v1/admin/products', { body: { ...base, slug, ...(form.group ? { group: form.group } : {}), options: options() } }));
        go(`/products/${product.id}`);
        return;
      }
      // Every variant is a product of the group (docs/variants.md), saved in one request: all or none.
      const body = {
        variants: variants.map((v) => ({
          ...base, slug: `${slug}-${slugify(v.value)}`, sku: v.sku || `${form.sku}-${v.value}`, price: v.price ? toCents(v.price) : base.price,
          quantity: Number(v.quantity || 0), options: { [optionName]: v.value },
        })),
      };
      try {
        ok(await api.POST('/api/v1/admin/product-groups/{group}/variants', { params: { path: { group: slug }, header: { 'Idempotency-Key': saveKey.current } }, body }));
      } catch (error) {
        if (error instanceof Refusal && error.problem.status > 0) saveKey.current = newKey();
        throw error;
      }
      go('/products');
    });
  };
  const imagesRefused = ['images', ...alsoVariants('images')].map((name) => refusal?.field(name)).find(Boolean);
  const shown = [...PRODUCT_FIELDS, ...variants.flatMap((_, i) => ['name', 'status', 'description', 'images', ...VARIANT_INPUTS.flatMap((input) => input.fields)].map((f) => `variants.${i}.${f}`))];
  return (
    <>
      <form onSubmit={submit} aria-label="Product">
        <div className="row spread">
          <h1>{id ? form.name || 'Product' : 'New product'}</h1>
          <div className="row"><a href="#/products">Back to products</a><button className="primary" disabled={busy}>Save</button></div>
        </div>
        <Problem refusal={refusal} shown={shown} />
        {saved && <div className="notice" role="status">{saved}</div>}
        <div className="panel grid2">
          <Field label="Name" name="name" also={alsoVariants('name')} refusal={refusal}><input name="name" required value={form.name} onChange={set('name')} /></Field>
          <Field label="Slug" name="slug" refusal={refusal}><input name="slug" placeholder={slugify(form.name)} value={form.slug} onChange={set('slug')} /></Field>
          <Field label={variants.length ? 'SKU (prefix of the variants\' SKUs)' : 'SKU'} name="sku" refusal={refusal}><input name="sku" required value={form.sku} onChange={set('sku')} /></Field>
          <Field label={variants.length ? 'Price (of a variant without its own)' : 'Price'} name="price" refusal={refusal}><input name="price" inputMode="decimal" required value={form.price} onChange={set('price')} /></Field>
          {variants.length === 0 && <Field label="Stock" name="quantity" refusal={refusal}><input name="quantity" type="number" min={0} value={form.quantity} onChange={set('quantity')} /></Field>}
          <Field label="Status" name="status" also={alsoVariants('status')} refusal={refusal}>
            <select name="status" value={form.status} onChange={set('status')}><option value="DRAFT">Draft</option><option value="ACTIVE">Active</option></select>
          </Field>
          {id && <Field label="Group" name="group" refusal={refusal}><input name="group" value={form.group} onChange={set('group')} /></Field>}
          {id && <Field label="Options (Name=Value, …)" name="options" refusal={refusal}><input name="options" value={form.options} onChange={set('options')} /></Field>}
        </div>
        <div className="panel">
          <Field label="Description (HTML)" name="description" also={alsoVariants('description')} refusal={refusal}><textarea name="description" rows={4} value={form.description} onChange={set('description')} /></Field>
        </div>
        <h2>Photos</h2>
        <div className="panel">
          <Photos images={images} onChange={setImages} />
          {imagesRefused && <span className="field-error" role="alert">{imagesRefused}</span>}
        </div>
        {!id && (
          <>
            <h2>Variants</h2>
            <div className="panel">
              <p className="muted">Leave empty for a single product. Each variant becomes a product of one group, with its own SKU, price and stock; they are saved together, or not at all.</p>
              <div className="row">
                <label>Option name<input name="optionName" value={optionName} onChange={(e) => setOptionName(e.target.value)} /></label>
                <button type="button" onClick={() => setVariants([...variants, { value: '', sku: '', price: '', quantity: '0' }])}>Add variant</button>
              </div>
              {variants.map((v, i) => (
                <div className="row variant" key={i}>
                  {VARIANT_INPUTS.map(({ key, fields }) => (
                    <Field key={key} label={key === 'value' ? optionName || 'Value' : key === 'quantity' ? 'Stock' : key === 'sku' ? 'SKU' : 'Price'} name={`variants.${i}.${fields[0]}`} also={fields.slice(1).map((f) => `variants.${i}.${f}`)} refusal={refusal}>
                      <input name={`variant-${i}-${key}`} value={v[key]} required={key === 'value'} inputMode={key === 'price' ? 'decimal' : key === 'quantity' ? 'numeric' : undefined}
                        placeholder={key === 'sku' ? `${form.sku}-${v.value}` : key === 'price' ? form.price : undefined}
                        onChange={(e) => setVariants(variants.map((w, j) => (j === i ? { ...w, [key]: e.target.value } : w)))} />
                    </Field>
                  ))}
                  <button type="button" className="danger" aria-label={`Remove variant ${i + 1}`} onClick={() => setVariants(variants.filter((_, j) => j !== i))}>Remove</button>
                </div>
              ))}
            </div>
          </>
        )}
      </form>
    {current?.group && <GroupVariants key={`${current.id}-${current.updatedAt}-${current.group}`} group={current.group} template={current} />}
    </>
  );
}
