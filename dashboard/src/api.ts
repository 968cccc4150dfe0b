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
  /**
   * The message for the body field `name` (dotted: `price`, `variants.3.sku`): the API names fields
   * `body.<path>` (a nested problem counts for its field too: `body.images.0.url` for `images`).
   */
  field(name: string): string | undefined {
    const message = this.problem.errors?.find((e) => 'field' in e && typeof e.field === 'string' && this.names(e.field, name))?.message;
    return typeof message === 'string' ? inWords(message) : undefined;
  }
  names(field: string, name: string): boolean {
    return field === `body.${name}` || field.startsWith(`body.${name}.`);
  }
}

/** A schema's message as a merchant reads it (a pattern or a bound in cents says little on a form). */
function inWords(message: string): string {
  const bound = /^must NOT have (more|fewer) than (\d+) characters$/.exec(message);
  if (bound) return bound[1] === 'more' ? `is too long (at most ${bound[2]} characters)` : bound[2] === '1' ? 'is required' : `is too short (at least ${bound[2]} characters)`;
  if (message.startsWith('must match pattern')) return 'is not in the expected form';
  if (/^must be (integer|number)$/.test(message)) return 'must be a number';
  if (/^must be >=? /.test(message)) return 'is too small';
  if (/^must be <=? /.test(message)) return 'is too large';
  return message;
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
