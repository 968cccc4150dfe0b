/** A JSON logger into memory, for tests that read what the app logged. */
import type { AppOptions } from '../../src/app.js';

export interface LogBuffer {
  logger: NonNullable<AppOptions['logger']>;
  /** Every line logged so far, parsed. */
  entries(): Array<Record<string, unknown> & { level: number; msg?: string }>;
  /** Everything logged so far, as written. */
  text(): string;
}

export function logBuffer(level = 'info'): LogBuffer {
  const lines: string[] = [];
  return {
    logger: { level, stream: { write: (line: string) => void lines.push(line) } },
    entries: () => lines.map((line) => JSON.parse(line)),
    text: () => lines.join(''),
  };
}

/** pino's number for a level. */
export const LEVEL = { info: 30, warn: 40, error: 50 } as const;

/** The entries a buffer logged with this `event`. */
export const events = (log: LogBuffer, event: string) => log.entries().filter((e) => e.event === event);

/** Waits until `check` holds, polling every 50 ms; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
