/**
 * `npm test`'s reporter: one line per test file as it ends (its counts, its time, how far the run
 * is), each failure in full under its file, and a summary: the failures again, why tests were
 * skipped, and a last line a machine reads, `tests: N passed, N failed, N skipped`. The exit code
 * stays node's own (non-zero on any failure). The full TAP of the run goes to
 * test-results/test-output.tap (package.json's second reporter).
 */
import { relative } from 'node:path';

/**
 * @typedef {{ type: string, data: { name?: string, nesting?: number, file?: string, skip?: boolean | string, todo?: boolean | string, details?: { duration_ms?: number, type?: string, error?: unknown } } }} TestEvent
 * @typedef {{ file: string, passed: number, failed: number, skipped: number, started: number, failures: string[] }} FileCounts
 */

const files = process.argv.filter((arg) => /\.test\.[cm]?[jt]s$/.test(arg));
/** @param {string | undefined} file */
const shown = (file) => (file ? relative(process.cwd(), file) : '(outside a file)');
/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** A failure as a person reads it: the test's name, the assertion's message, where it failed. */
/** @param {string} name @param {unknown} error @returns {string} */
function describeFailure(name, error) {
  const cause = /** @type {{ cause?: unknown }} */ (error)?.cause ?? error;
  const message = cause instanceof Error ? cause.message : String(cause);
  const where = cause instanceof Error ? (cause.stack ?? '').split('\n').find((line) => /\.test\.ts:\d+/.test(line))?.trim() : undefined;
  const body = message.split('\n').slice(0, 40).map((line) => `      ${line}`).join('\n');
  return `    ✖ ${name}\n${body}${where ? `\n      ${where}` : ''}`;
}

/** @param {AsyncIterable<TestEvent>} source */
export default async function* progressReporter(source) {
  const start = Date.now();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  /** @type {Map<string, number>} */
  const skipReasons = new Map();
  /** @type {string[]} */
  const failures = [];
  /** @type {FileCounts | undefined} */
  let current;
  let done = 0;
  // A file's time runs from the end of the one before (files run one at a time).
  let lastFinished = start;

  /** @param {FileCounts} counts */
  const finish = (counts) => {
    done++;
    const ended = Date.now();
    const parts = [`${counts.passed} passed`];
    if (counts.failed) parts.push(`${counts.failed} failed`);
    if (counts.skipped) parts.push(`${counts.skipped} skipped`);
    const progress = files.length ? ` [${done}/${files.length}]` : '';
    const mark = counts.failed ? 'FAIL' : 'ok  ';
    const line = `${mark} ${counts.file}  ${parts.join(', ')}  (${seconds(ended - counts.started)})${progress}\n`;
    lastFinished = ended;
    return counts.failures.length ? `${line}${counts.failures.join('\n')}\n` : line;
  };

  for await (const event of source) {
    const { data } = event;
    // Files run one at a time (--test-concurrency=1): the runner takes the next file when the last
    // one has ended, so its line is printed then, and the next file's time starts.
    if (event.type === 'test:dequeue' && data.nesting === 0 && data.file && data.name === data.file) {
      if (current) yield finish(current);
      current = { file: shown(data.file), passed: 0, failed: 0, skipped: 0, started: Date.now(), failures: [] };
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (data.details?.type === 'suite') continue;
    const file = shown(data.file);
    if (current?.file !== file) {
      if (current) yield finish(current);
      current = { file, passed: 0, failed: 0, skipped: 0, started: lastFinished, failures: [] };
    }
    if (event.type === 'test:fail') {
      // A parent fails with its failing subtests: count (and show) the failure once, where it is.
      const subtestsFailed = /** @type {{ failureType?: string } | undefined} */ (data.details?.error)?.failureType === 'subtestsFailed';
      if (subtestsFailed) continue;
      current.failed++;
      totals.failed++;
      const text = describeFailure(data.name ?? '(unnamed)', data.details?.error);
      current.failures.push(text);
      failures.push(`  ${file}\n${text}`);
    } else if (data.skip !== undefined && data.skip !== false) {
      current.skipped++;
      totals.skipped++;
      const reason = typeof data.skip === 'string' ? data.skip : 'skipped';
      skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
    } else if (data.todo !== undefined && data.todo !== false) {
      current.skipped++;
      totals.skipped++;
      skipReasons.set('todo', (skipReasons.get('todo') ?? 0) + 1);
    } else {
      current.passed++;
      totals.passed++;
    }
  }
  if (current) yield finish(current);

  const lines = [''];
  if (skipReasons.size) {
    lines.push('skipped:');
    for (const [reason, count] of [...skipReasons].sort((a, b) => b[1] - a[1])) lines.push(`  ${count} × ${reason}`);
  }
  if (failures.length) lines.push('failed:', ...failures);
  lines.push(`${done} files in ${seconds(Date.now() - start)}; npm test writes the full TAP to test-results/test-output.tap`);
  // The last line, alone, for machines: exactly "tests: N passed, N failed, N skipped".
  lines.push(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`, '');
  yield lines.join('\n');
}
