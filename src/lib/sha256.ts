/** SHA-256 in hex, the one hash secrets are kept and looked up by (tokens, staff sessions). */
import * as crypto from 'node:crypto';

// crypto.hash (Node 20.12 and later) makes no Hash object: about half the time of createHash for
// a token-sized text, and every request with a credential hashes one.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function sha256Hex(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}
