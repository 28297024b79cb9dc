import fc from 'fast-check';

/**
 * fast-check arbitraries for the values in requests to the HTTP API (bodies'
 * fields, query parameters), from the routes' own schemas: of the types a
 * schema asks for, so that requests get past validation into the handlers,
 * and the hostile ones (wrong types, huge and unicode strings, CR/LF,
 * `__proto__` and `constructor` keys, numbers no double holds). Requests are
 * made of them in fuzz-requests.ts.
 */

/** JSON text written as it is: numbers no double holds, nesting deeper than anyone writes. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object as its entries, so that `__proto__` is written as a key like any other, not taken as the prototype. */
export class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([key, v]) => `${JSON.stringify(key)}:${toJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** A route's JSON Schema, as far as the generators read it (TypeBox's output). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

const HOSTILE_TEXT = [
  '',
  ' ',
  '\r\n',
  'a\r\nBcc: victim@example.com',
  'Subject: x\r\n\r\nbody',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '\u202eevil',
  '\ufeff',
  '💌'.repeat(200),
  'ﷺ'.repeat(50),
  '<img src=x onerror=alert(1)>',
  "' or 1=1 --",
  '../../etc/passwd',
  '%00',
  '%',
  '=?utf-8?b?AAAA?=',
  '=?'.repeat(500),
  '@'.repeat(2000),
  '<'.repeat(2000),
  '('.repeat(2000),
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '99999999999999999999',
  '-1',
  '1e400',
  'null',
  '[]',
  '{}',
  `${'a'.repeat(300)}@example.com`,
  `user@${'b'.repeat(300)}.com`,
  'user@example.com',
  'Ada <user@example.com>',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  '9999-99-99T99:99:99Z',
  '2026-02-30T00:00:00Z',
  'name:value',
  ':',
];

/** Text no schema would ask for. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 5_000, max: 100_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => '\u00e9\u{1F48C}\u0000\r\n'.repeat(n / 5)) },
);

const PROTO_POLLUTION = [
  new Entries([['__proto__', new Entries([['polluted', true]])]]),
  new Entries([['constructor', new Entries([['prototype', new Entries([['polluted', true]])]])]]),
  new Entries([['__proto__', null]]),
];

/** Any JSON value a handler should not expect. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0, 2 ** 53 + 2, 1e308, [], new Entries([])) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(new RawJson('1e400'), new RawJson('-1e400'), new RawJson('99999999999999999999999999'), new RawJson('1.0e-400'), new RawJson('-0')),
  },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_POLLUTION) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3_000 }).map((depth) => new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/**
 * Values of the route's schema: of the types it asks for (`plausible` are
 * strings that get further than random ones: addresses, ids of the store's
 * rows), and when `hostile`, one in six anything else, with unexpected keys
 * in objects.
 */
export function valueFor(schema: JsonSchema | undefined, plausible: string[], hostile: boolean, depth = 0): fc.Arbitrary<unknown> {
  const typed = typedValue(schema, plausible, hostile, depth);
  return hostile ? fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: hostileValue }) : typed;
}

function typedValue(schema: JsonSchema | undefined, plausible: string[], hostile: boolean, depth: number): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostile ? hostileValue : fc.constant(null);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map((option) => typedValue(option, plausible, hostile, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => typedValue({ ...schema, type }, plausible, hostile, depth)));
  switch (schema.type) {
    case 'string':
      return fc.oneof(
        fc.constantFrom(...plausible),
        fc.string({ unit: 'grapheme', minLength: Math.min(schema.minLength ?? 0, 40), maxLength: Math.min(schema.maxLength ?? 40, 40) }),
      );
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1_000;
      const max = schema.maximum ?? Math.max(min, 0) + 1_000;
      return schema.type === 'integer' ? fc.integer({ min, max: Math.min(max, Number.MAX_SAFE_INTEGER) }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, plausible, hostile, depth + 1), { minLength: Math.min(schema.minItems ?? 0, 3), maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object':
      return objectFor(schema, plausible, hostile, depth);
    default:
      return hostile ? hostileValue : fc.constant(null);
  }
}

function objectFor(schema: JsonSchema, plausible: string[], hostile: boolean, depth: number): fc.Arbitrary<Entries> {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) =>
    fc.option(
      valueFor(property, plausible, hostile, depth + 1).map((value): [string, unknown] => [name, value]),
      { freq: required.has(name) ? (hostile ? 12 : 1_000_000) : 2, nil: undefined },
    ),
  );
  const open = schema.patternProperties ? Object.values(schema.patternProperties)[0] : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const more = open ? fc.array(fc.tuple(fc.string({ maxLength: 20 }), valueFor(open, plausible, hostile, depth + 1)), { maxLength: 3 }) : fc.constant([]);
  if (!hostile) return fc.tuple(fc.tuple(...fields), more).map(([given, added]) => new Entries([...given.filter((field) => field !== undefined), ...(added as [string, unknown][])]));
  const unexpected = fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'unknown_field'), hostileValue), { minLength: 1, maxLength: 2 });
  const extra = fc.oneof({ weight: 5, arbitrary: fc.constant<[string, unknown][]>([]) }, { weight: 1, arbitrary: unexpected });
  return fc
    .tuple(fc.tuple(...fields), more, extra)
    .map(([given, added, unexpected]) => new Entries([...given.filter((field) => field !== undefined), ...(added as [string, unknown][]), ...unexpected]));
}

