import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * A body with an unknown field is told of that field first, before a required one it lacks: Resend's
 * `{"from": …}` was answered "from_email is required", which hides the mistake. Ajv checks `required`
 * before `additionalProperties` and stops at the first error (allErrors would gather every error of a
 * large body, which an invalid body must not be able to make expensive); so a body that lacks a field
 * is checked again, once, against the same schema without any `required`, whose first error is then the
 * unknown field if there is one.
 */

/** Keys whose value maps names to schemas: a property named `required` there is a field, not the keyword. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** A copy of a JSON schema with every `required` keyword left out. */
export function withoutRequired(schema: unknown, named = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutRequired(item));
  if (schema === null || typeof schema !== 'object') return schema;
  // $id too: the copy is compiled beside the schema in the same Ajv, which refuses an id twice.
  const entries = Object.entries(schema).filter(([key]) => named || (key !== 'required' && key !== '$id'));
  return Object.fromEntries(entries.map(([key, value]) => [key, named ? withoutRequired(value) : withoutRequired(value, NAMED_SCHEMAS.has(key))]));
}

/**
 * Resend's names for fields /v1 names otherwise: suggested after "is not a supported field" when the
 * object's schema has the /v1 name (so never on the Resend-compatible routes, which take Resend's).
 */
const V1_NAMES: Record<string, string> = { from: 'from_email', replyTo: 'reply_to', scheduledAt: 'scheduled_at' };

/** The sub-schema at a JSON pointer of Ajv's `schemaPath` (`#/items/properties/to`); undefined if the path leaves the schema. */
function schemaAt(schema: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((at, part) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), schema);
}

/** The /v1 name of an unknown field that is Resend's name for it, when the object takes that name. */
function v1NameOf(schema: unknown, error: ErrorObject): string | undefined {
  const name = V1_NAMES[String(error.params.additionalProperty)];
  const parent = schemaAt(schema, error.schemaPath.replace(/\/additionalProperties$/, '')) as { properties?: Record<string, unknown> } | undefined;
  return name !== undefined && parent?.properties?.[name] !== undefined ? name : undefined;
}

/**
 * The errors to report for `data`, which `validate` (compiled from `schema`) refused: an unknown field
 * in preference to a missing one, with `params.v1Name` when the unknown field is Resend's name for one
 * of this API's. `lenient` compiles the schema without `required`, once, when first needed.
 */
export function unknownFieldsFirst(schema: unknown, data: unknown, errors: ErrorObject[], lenient: () => ValidateFunction): ErrorObject[] {
  let chosen = errors;
  if (errors[0]?.keyword === 'required') {
    const check = lenient();
    if (!check(data) && check.errors?.[0]?.keyword === 'additionalProperties') chosen = check.errors;
  }
  const first = chosen[0];
  if (first?.keyword === 'additionalProperties') {
    const v1Name = v1NameOf(schema, first);
    if (v1Name !== undefined) return [{ ...first, params: { ...first.params, v1Name } }, ...chosen.slice(1)];
  }
  return chosen;
}
