/** API timestamps are ISO 8601 UTC strings with milliseconds. */
export function toIso(date: Date | string): string {
  return asDate(date).toISOString();
}

export function toIsoOrNull(date: Date | string | null | undefined): string | null {
  return date == null ? null : toIso(date);
}

/** A timestamp from a raw query: a Date on one back end, a string on the other. */
export function asDate(date: Date | string): Date {
  return date instanceof Date ? date : new Date(date);
}
