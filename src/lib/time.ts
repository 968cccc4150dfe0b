/** API timestamps are ISO 8601 UTC strings with milliseconds. */
export function toIso(date: Date | string): string {
  return (date instanceof Date ? date : new Date(date)).toISOString();
}

export function toIsoOrNull(date: Date | string | null | undefined): string | null {
  return date == null ? null : toIso(date);
}
