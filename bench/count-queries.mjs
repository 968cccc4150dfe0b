/**
 * Counts the server's round trips to PostgreSQL (`node --import ./bench/count-queries.mjs`): every
 * `query` of a pg client is one. The count is written to QUERY_COUNT_FILE every 200 ms (whole, by a
 * rename), so the benchmark reads it before and after a workload and divides by the requests
 * answered. With QUERY_LOG_FILE, each statement's first line is appended there too (to see them).
 */
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import pg from 'pg';

const file = process.env.QUERY_COUNT_FILE;
const log = process.env.QUERY_LOG_FILE;
if (file || log) {
  let count = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    count++;
    if (log) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? args[0]?.name ?? '?');
      appendFileSync(log, `${String(text).replace(/\s+/g, ' ').slice(0, 160)}\n`);
    }
    return query.apply(this, args);
  };
  if (file) {
    setInterval(() => {
      writeFileSync(`${file}.next`, String(count));
      renameSync(`${file}.next`, file);
    }, 200).unref();
  }
}
