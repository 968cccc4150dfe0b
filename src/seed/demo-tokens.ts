/**
 * The demo store's tokens, kept in the embedded database's directory. The database keeps only their
 * hashes, so without this file a restart (the walkthrough asks for one) would leave a newcomer with
 * no way back in but deleting the data. The file is the owner's alone (0600), like an SSH key, and
 * is a shell line (`. data/demo-store.env`), so loading it is the same on the first start and
 * every one after. Each start rewrites its address, which follows PORT and HOST.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';

export const DEMO_TOKENS_FILE = 'demo-store.env';

export interface DemoTokens {
  admin: string;
  storefront: string;
}

export function demoTokensPath(dataDir: string): string {
  return join(dataDir, DEMO_TOKENS_FILE);
}

/** The path as a person types it from the current folder: `data/demo-store.env`, or absolute when outside. */
export function shownPath(path: string, cwd = process.cwd()): string {
  const near = relative(cwd, path);
  return near && !near.startsWith('..') && !isAbsolute(near) ? near : path;
}

/** The line to load into a shell: the API's address and both tokens. */
export function exportLine(apiBase: string, tokens: DemoTokens): string {
  return `export API=${apiBase} ADMIN=${tokens.admin} SF=${tokens.storefront}`;
}

export function readDemoTokens(dataDir: string): DemoTokens | undefined {
  const path = demoTokensPath(dataDir);
  if (!existsSync(path)) return undefined;
  const line = /^export API=\S+ ADMIN=(\S+) SF=(\S+)$/m.exec(readFileSync(path, 'utf8'));
  return line ? { admin: line[1]!, storefront: line[2]! } : undefined;
}

/** Writes (or rewrites, with today's address) the file, readable and writable by its owner only. */
export function writeDemoTokens(dataDir: string, apiBase: string, tokens: DemoTokens): string {
  const path = demoTokensPath(dataDir);
  const text = [
    `# The demo store's tokens, kept by npm start (the database keeps only their hashes). Owner-only: keep it so.`,
    `# Load them into a shell with: . ${shownPath(path)}`,
    exportLine(apiBase, tokens),
    '',
  ].join('\n');
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode on write
  return path;
}
