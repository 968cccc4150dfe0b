/**
 * The dashboard's API: the project's typed client (clients/typescript) with the staff session as
 * its bearer credential. A 401 signs the person out (the session ended or expired).
 */
import { createStorefrontClient, type components } from '../../clients/typescript/src/index.js';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

const KEY = 'dashboard.session';

export interface Session {
  secret: string;
  store: string;
  email: string;
  role: 'owner' | 'staff';
  expiresAt: string;
}

export function savedSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && Date.parse(s.expiresAt) > Date.now() ? s : null;
  } catch {
    return null;
  }
}
export const saveSession = (s: Session | null) => (s ? sessionStorage.setItem(KEY, JSON.stringify(s)) : sessionStorage.removeItem(KEY));

let onSignedOut: () => void = () => {};
export const whenSignedOut = (f: () => void) => (onSignedOut = f);

export const api = createStorefrontClient({
  baseUrl: location.origin,
  token: () => savedSession()?.secret,
  fetch: async (input) => {
    const response = await fetch(input);
    if (response.status === 401 && !String((input as Request).url).includes('/v1/staff/')) onSignedOut();
    return response;
  },
});

/** A refusal as the screens show it: a sentence, and one message per field it names. */
export class Refusal extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
  field(name: string): string | undefined {
    return this.problem.errors?.find((e) => 'field' in e && typeof e.field === 'string' && (e.field === `/${name}` || e.field.startsWith(`/${name}/`)))?.message as string | undefined;
  }
}

/** The data of an answer, or a Refusal with its problem. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new Refusal((result.error as Problem | undefined) ?? ({ code: 'EMPTY', detail: `HTTP ${result.response.status}`, status: result.response.status, title: '', type: '' } as unknown as Problem));
  }
  return result.data;
}

/** Uploads a picture as the raw body (the route takes bytes, not JSON). */
export async function uploadImage(file: File): Promise<{ url: string; width: number; height: number }> {
  const response = await fetch('/api/v1/admin/images', {
    method: 'POST',
    headers: { authorization: `Bearer ${savedSession()?.secret ?? ''}`, 'content-type': file.type || 'application/octet-stream' },
    body: file,
  });
  const body = await response.json();
  if (!response.ok) throw new Refusal(body as Problem);
  return body.image;
}
