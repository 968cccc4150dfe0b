/** Signing keys and JWTs made with `jose`, and a JWK Set server on loopback that serves their public halves. */
import { after } from 'node:test';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(alg: SigningKey['alg'] = 'ES256'): Promise<SigningKey> {
  const kid = randomUUID();
  const pair = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
}

export interface JwtClaims {
  iss: string;
  aud: string | string[];
  sub: string;
  expiresIn?: string | number;
}

export function signJwt(key: SigningKey, claims: JwtClaims): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '5m')
    .sign(key.privateKey);
}

/** A JWK Set on http://127.0.0.1 serving `keys` (the test may change them); closed when the file ends. */
export async function serveJwks(keys: JWK[]): Promise<{ url: string; keys: JWK[]; fetches: () => number }> {
  const served = { keys, count: 0 };
  const server = http.createServer((_request, response) => {
    served.count++;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: served.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/.well-known/jwks.json`, keys: served.keys, fetches: () => served.count };
}
