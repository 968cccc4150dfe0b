/**
 * Rate limits count per minute of the clock (fixed windows). A test whose requests must all fall
 * in one window begins well inside one; otherwise the minute may turn between its requests and
 * hand the client a fresh budget (a CI run once failed so: five requests, none refused).
 */
export async function wellInsideAMinute(needMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
