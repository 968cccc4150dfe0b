/**
 * What every screen shares: hash routes, running a request with its refusal kept for the form,
 * a field with the API's word on it beside it, the problem above a form, and money as people write it.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Refusal } from './api.js';

export function useHash(): string {
  const [hash, setHash] = useState(location.hash.slice(1) || '/products');
  useEffect(() => {
    const on = () => setHash(location.hash.slice(1) || '/products');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}
export const go = (path: string) => (location.hash = path);

/** Runs a request, keeping its refusal for the form to show. */
export function useAction() {
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
  return { refusal, busy, run, setRefusal };
}

/**
 * A labelled control with the refusal of the field `name` names (or of any of `also`) beside it;
 * the message is tied to the control for screen readers by its id.
 */
export function Field(props: { label: string; name: string; refusal: Refusal | null; also?: string[]; className?: string; children: ReactNode }) {
  const message = [props.name, ...(props.also ?? [])].map((name) => props.refusal?.field(name)).find(Boolean);
  return (
    <label className={props.className}>
      {props.label}
      {props.children}
      {message && <span className="field-error" role="alert" id={`${props.name}-error`}>{message}</span>}
    </label>
  );
}

/** The refusal's sentence above the form, with the problems no field on the screen shows. */
export function Problem({ refusal, shown = [] }: { refusal: Refusal | null; shown?: string[] }) {
  if (!refusal) return null;
  const errors = refusal.problem.errors ?? [];
  const listed = errors.filter((e) => !('field' in e) || !shown.some((name) => refusal.names(e.field as string, name)));
  // Every problem stands beside its field: say so here rather than repeat the first of them.
  const beside = errors.length > 0 && listed.length === 0;
  return (
    <div className="error" role="alert">
      {beside ? `Not saved: ${errors.length === 1 ? 'see the field marked below' : `see the ${errors.length} fields marked below`}.` : refusal.problem.detail}
      {listed.length > 0 && <ul>{listed.map((e, i) => <li key={i}>{'field' in e ? `${String(e.field).replace(/^body\./, '')}: ${String(e.message)}` : JSON.stringify(e)}</li>)}</ul>}
    </div>
  );
}

export const money = (cents: number | null | undefined) => (cents == null ? '' : (cents / 100).toFixed(2));
/** Text a person typed as an amount ("49.90", "49,9") in the smallest unit; NaN when it is not one (the API then says why). */
export const toCents = (text: string) => (text.trim() === '' ? Number.NaN : Math.round(Number(text.replace(',', '.')) * 100));
export const slugify = (text: string) => text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');
export const PAGE = 25;

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context, which a plain-http host is not). */
export function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
