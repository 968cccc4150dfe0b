/**
 * npm test's reporter (test/support/progress-reporter.mjs) on two small fixture files: one line
 * per file, the failure in full, the skip reasons, and the closing line a CI reads, exactly
 * `tests: N passed, N failed, N skipped` alone on its line; the exit code is non-zero on a failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './support/database.js';

function run(...files: string[]) {
  // Without the runner's own variable, which would make the inner run report to this one.
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=./test/support/progress-reporter.mjs', '--test-reporter-destination=stdout', ...files.map((f) => join('test/fixtures/reporter', f))],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: r.status, lines: r.stdout.split('\n') };
}

test('a run with a failure: a line per file, the failure, the reasons for skips, the counts, and exit 1', () => {
  const { status, lines } = run('passing.test.ts', 'failing.test.ts');
  assert.equal(status, 1);
  const fileLines = lines.filter((l) => /^(ok  |FAIL) /.test(l));
  assert.equal(fileLines.length, 2, lines.join('\n'));
  assert.ok(fileLines.some((l) => /^ok {3}test\/fixtures\/reporter\/passing\.test\.ts {2}1 passed, 1 skipped {2}\(\d+\.\d s\) \[[12]\/2\]$/.test(l)), lines.join('\n'));
  assert.ok(fileLines.some((l) => /^FAIL test\/fixtures\/reporter\/failing\.test\.ts {2}1 passed, 1 failed {2}\(\d+\.\d s\) \[[12]\/2\]$/.test(l)), lines.join('\n'));
  assert.ok(lines.includes('    ✖ fails') && lines.includes('      one is not two'), 'the failure, by name and message');
  assert.ok(lines.includes('  1 × needs TEST_DATABASE_URL'), 'why a test was skipped');
  assert.equal(lines.filter((l) => /^\w+: \d+ passed, \d+ failed(, \d+ skipped)?$/.test(l)).length, 1);
  assert.equal(lines.at(-2), 'tests: 2 passed, 1 failed, 1 skipped');
});

test('a run that passes exits 0 and closes with its counts', () => {
  const { status, lines } = run('passing.test.ts');
  assert.equal(status, 0);
  assert.equal(lines.at(-2), 'tests: 1 passed, 0 failed, 1 skipped');
});
