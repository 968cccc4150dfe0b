// `npm install` builds the dashboard (dashboard/ to dashboard/dist, served at /admin). Without the
// dev dependencies (`npm install --omit=dev`) there is no Vite: the service then answers /admin with
// a note, and everything else works.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync(new URL('../node_modules/vite/package.json', import.meta.url))) {
  console.log('dashboard: Vite is not installed (dev dependencies omitted); /admin will not be served');
  process.exit(0);
}
const result = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
process.exit(result.status ?? 1);
