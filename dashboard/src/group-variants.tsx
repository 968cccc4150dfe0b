/**
 * All the variants of an item on one screen: each product of the group with its SKU, price, stock
 * and status, and new ones, saved with one request (POST /v1/admin/product-groups/:group/variants),
 * all or none; a refusal stands beside the row and field it names.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ok, Refusal, type Schemas } from './api.js';
import { Field, go, money, newKey, Problem, slugify, toCents, useAction } from './ui.js';

type Product = Schemas['AdminProduct'];
interface Row { id?: string; label: string; value: string; sku: string; price: string; quantity: string; status: 'DRAFT' | 'ACTIVE' }

const rowOf = (p: Product): Row => ({
  id: p.id, label: Object.entries(p.options ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ') || p.slug,
  value: '', sku: p.sku, price: money(p.price), quantity: String(p.quantity), status: p.status as Row['status'],
});

/** The group's variants; `template` is the product being edited, whose name, description and photos a new variant takes. */
export function GroupVariants({ group, template }: { group: string; template: Product }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [optionName, setOptionName] = useState(Object.keys(template.options ?? {})[0] ?? 'Size');
  const [notice, setNotice] = useState('');
  const { refusal, busy, run } = useAction();
  const saveKey = useRef(newKey());
  const load = useCallback(async () => {
    const { products } = ok(await api.GET('/api/v1/admin/products', { params: { query: { group, limit: 100 } } }));
    // Oldest first, as the storefront's group view lists them.
    setRows([...products].reverse().map(rowOf));
  }, [group]);
  useEffect(() => void run(load), [run, load]);
  const newSku = (value: string) => `${group}-${slugify(value)}`.toUpperCase();
  const set = (i: number, key: keyof Row, value: string) => setRows(rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setNotice('');
    run(async () => {
      const variants = rows.map((r) => {
        const fields = { sku: r.sku, price: toCents(r.price), quantity: Number(r.quantity), status: r.status };
        if (r.id) return { id: r.id, ...fields };
        return { ...fields, sku: r.sku || newSku(r.value), name: template.name, description: template.description, images: template.images, slug: `${group}-${slugify(r.value)}`, options: { [optionName]: r.value } };
      });
      try {
        const saved = ok(await api.POST('/api/v1/admin/product-groups/{group}/variants', { params: { path: { group }, header: { 'Idempotency-Key': saveKey.current } }, body: { variants } }));
        saveKey.current = newKey();
        setRows(saved.products.map(rowOf));
        setNotice(`Saved ${saved.products.length} variants.`);
      } catch (error) {
        if (error instanceof Refusal && error.problem.status > 0) saveKey.current = newKey();
        throw error;
      }
    });
  };
  const shown = rows.flatMap((_, i) => ['options', 'slug', 'sku', 'price', 'quantity', 'status'].map((f) => `variants.${i}.${f}`));
  return (
    <form onSubmit={submit} aria-label="Variants of the group">
      <h2>Variants of {group}</h2>
      <div className="panel">
        <p className="muted">Every product of the item, saved together or not at all. A new one takes this product's name, description and photos.</p>
        {notice && <div className="notice" role="status">{notice}</div>}
        <Problem refusal={refusal} shown={shown} />
        {rows.map((r, i) => (
          <div className="row variant" key={r.id ?? `new-${i}`}>
            {r.id ? (
              <div className="variant-label"><a href={`#/products/${r.id}`} onClick={(e) => { e.preventDefault(); go(`/products/${r.id}`); }}>{r.label}</a></div>
            ) : (
              <Field label={optionName || 'Value'} name={`variants.${i}.options`} also={[`variants.${i}.slug`]} refusal={refusal}>
                <input name={`group-${i}-value`} required value={r.value} onChange={(e) => set(i, 'value', e.target.value)} />
              </Field>
            )}
            <Field label="SKU" name={`variants.${i}.sku`} refusal={refusal}><input name={`group-${i}-sku`} value={r.sku} placeholder={r.id ? undefined : newSku(r.value)} onChange={(e) => set(i, 'sku', e.target.value)} /></Field>
            <Field label="Price" name={`variants.${i}.price`} refusal={refusal}><input name={`group-${i}-price`} inputMode="decimal" value={r.price} onChange={(e) => set(i, 'price', e.target.value)} /></Field>
            <Field label="Stock" name={`variants.${i}.quantity`} refusal={refusal}><input name={`group-${i}-quantity`} inputMode="numeric" value={r.quantity} onChange={(e) => set(i, 'quantity', e.target.value)} /></Field>
            <Field label="Status" name={`variants.${i}.status`} refusal={refusal}>
              <select name={`group-${i}-status`} value={r.status} onChange={(e) => set(i, 'status', e.target.value)}><option value="DRAFT">Draft</option><option value="ACTIVE">Active</option></select>
            </Field>
            {!r.id && <button type="button" className="danger" aria-label={`Remove new variant ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</button>}
          </div>
        ))}
        <div className="row actions">
          {rows.every((r) => r.id) && <label>New variants' option<input name="groupOptionName" value={optionName} onChange={(e) => setOptionName(e.target.value)} /></label>}
          <button type="button" onClick={() => setRows([...rows, { label: '', value: '', sku: '', price: money(template.price), quantity: '0', status: template.status as Row['status'] }])}>Add variant</button>
          <button className="primary" disabled={busy || rows.length === 0}>Save variants</button>
        </div>
      </div>
    </form>
  );
}
