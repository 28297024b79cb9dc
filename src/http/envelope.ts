/** SPEC.md §1: every response but the health check is one of these two shapes. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** `hint`, on the few errors that have one (lib/errors.ts), says what to do instead. */
export function fail(error: string, hint?: string): { success: false; error: string; hint?: string } {
  return hint === undefined ? { success: false, error } : { success: false, error, hint };
}

/** The success envelope around data that is JSON text already (written by the store): sent as it is, not parsed and serialised again. */
export function okJson(json: string): string {
  return `{"success":true,"data":${json}}`;
}
