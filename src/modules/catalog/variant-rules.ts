/**
 * The rules of variants that a JSON Schema cannot say: option names distinct ignoring case, and
 * the 409 of a second product with the same options in one group (a unique index decides it, so
 * concurrent writes cannot both pass).
 */
import { postgresConstraint, postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';

/** The unique index of (store, group, normalized options) among non-deleted products. */
const GROUP_OPTIONS_KEY = 'products_store_group_options_key';

/**
 * Options in Unicode NFC form: "é" typed as one code point and as "e" with a combining accent are one
 * value (and one name), so they are stored, compared and shown as one.
 */
export function nfcOptions<T extends { options?: Record<string, string> }>(body: T): T {
  if (!body.options) return body;
  return { ...body, options: Object.fromEntries(Object.entries(body.options).map(([name, value]) => [name.normalize('NFC'), value.normalize('NFC')])) };
}

/** Refuses option names that differ only in case or in Unicode form: combinations are compared ignoring case, in NFC. */
export function checkOptionNames(options: Record<string, string> | undefined, field = 'body.options'): void {
  const twice = repeatedOptionName(options);
  if (twice !== undefined) {
    const detail = `options name "${twice}" twice (names are compared ignoring case)`;
    throw new AppError('VALIDATION_FAILED', detail, { errors: [{ field, message: detail }] });
  }
}

/** An option name that another name of the same options equals ignoring case, or undefined. */
export function repeatedOptionName(options: Record<string, string> | undefined): string | undefined {
  const seen = new Set<string>();
  for (const name of Object.keys(options ?? {})) {
    const folded = name.normalize('NFC').toLowerCase();
    if (seen.has(folded)) return name;
    seen.add(folded);
  }
  return undefined;
}

/**
 * A combination of options as the unique index compares them (names and values NFC, lower-cased,
 * in no order), for telling which products of a request would collide before writing any.
 */
export function optionsKey(options: Record<string, string>): string {
  const folded = Object.entries(options).map(([name, value]) => [name.normalize('NFC').toLowerCase(), value.normalize('NFC').toLowerCase()]);
  return JSON.stringify(folded.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)));
}

/** The 409 for a product whose options another product of its group already has, or undefined. */
export function sameOptionsConflict(error: unknown): AppError | undefined {
  if (postgresErrorCode(error) !== '23505' || postgresConstraint(error) !== GROUP_OPTIONS_KEY) return undefined;
  return new AppError('CONFLICT', 'another product of this group already has these options (names and values are compared ignoring case)');
}
