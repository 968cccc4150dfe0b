/** The `Authorization: Bearer <token>` header, parsed once for every caller of it. */

/** The token of a Bearer header: undefined when there is no header, null when it is not `Bearer <token>`. */
export function bearerTokenOf(header: string | undefined): string | undefined | null {
  if (!header) return undefined;
  return /^Bearer +([^\s]+) *$/i.exec(header)?.[1] ?? null;
}
