/**
 * The server's sentences name the field they are about first (`new_password must be …`): such an error is
 * shown next to that field, without the field's API name (its label is right above it); any other above
 * the form.
 */
export function splitError(message: string | undefined, fields: string[]): { field: Record<string, string>; form?: string } {
  if (!message) return { field: {} };
  const name = fields.find((f) => message.startsWith(`${f} `));
  if (!name) return { field: {}, form: message };
  const rest = message.slice(name.length + 1);
  return { field: { [name]: `${rest.charAt(0).toUpperCase()}${rest.slice(1)}` } };
}
