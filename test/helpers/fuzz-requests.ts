import fc from 'fast-check';
import { Entries, hostileText, hostileValue, RawJson, toJson, valueFor, type JsonSchema } from './fuzz-values.js';

/**
 * fast-check arbitraries for whole requests to one route of the HTTP API:
 * well formed (what gets past the guards and the schema into the handler),
 * well formed but for one thing (a number past what a double holds in a
 * numeric parameter, a hostile field, an odd content type, a wrong key…),
 * and hostile anywhere.
 */

/** A route as Fastify registered it, with the schemas it validates against. */
export interface FuzzRoute {
  method: string;
  url: string;
  schema: { body?: JsonSchema; querystring?: JsonSchema };
}

export interface FuzzRequest {
  route: FuzzRoute;
  method: string;
  /** The values of the route's path parameters, in order, as they go into the path. */
  segments: string[];
  /** Query parameters as they go into the URL (already encoded, or broken on purpose). */
  query: [string, string][];
  /** Text after the parameters: `&&&`, `%`, a fragment… */
  queryTail: string;
  body: string | undefined;
  contentType: string | undefined;
  /** What the request authenticates with: the real API key or session, none, or a forged one. */
  credentials: 'valid' | 'none' | 'wrong';
  headers: Record<string, string>;
}

/** Ids of the store's rows by path parameter name, and strings that get further than random ones (addresses, the ids). */
export interface FuzzPools {
  known: Record<string, string[]>;
  plausible: string[];
}

export function urlOf(request: FuzzRequest): string {
  let at = 0;
  const path = request.route.url.replace(/:[A-Za-z0-9_]+|\*/g, () => request.segments[at++] ?? '');
  const parts = [...request.query.map(([name, value]) => `${name}=${value}`), ...(request.queryTail ? [request.queryTail] : [])];
  return parts.length > 0 ? `${path}?${parts.join('&')}` : path;
}

/** Text for a query string, as a client would encode it (a lone surrogate has no UTF-8: its bytes as CESU writes them). */
function encoded(value: unknown): string {
  const text =
    typeof value === 'string' ? value
    : value instanceof RawJson ? value.text
    : value instanceof Entries || Array.isArray(value) ? toJson(value)
    // fc.jsonValue's objects may have keys such as toString or valueOf, which String() would call.
    : typeof value === 'object' && value !== null ? JSON.stringify(value)
    : String(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/** Query text for a hostile value: encoded, or with `+` for spaces, or with escapes that end too soon or mean nothing. */
const hostileQueryText: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(hostileText, hostileValue), fc.constantFrom('', '', '', '%', '%zz', '%E0%A4%A'))
  .map(([value, broken]) => `${encoded(value)}${broken}`);

/** Numbers as query text, at and past the edges of what a double and the stores hold. */
export const NUMBERS_AS_TEXT = [
  '99999999999999999999',
  '9007199254740992',
  '9007199254740993',
  '18446744073709551616',
  '1e21',
  '9007199254740991',
  '-99999999999999999999',
  '-9007199254740992',
  '1e400',
  '-1e400',
  '0x1f',
  '1.5',
  '-0',
  ' 5',
  '',
  'NaN',
  'Infinity',
  '00000000000000000001',
];

/** The route's query parameters whose schema is a number. */
export function numericParameters(schema: JsonSchema | undefined): string[] {
  return Object.entries(schema?.properties ?? {})
    .filter(([, property]) => property.type === 'integer' || property.type === 'number')
    .map(([name]) => name);
}

/** Some of the route's query parameters, each with a value of its type. */
function typedQuery(schema: JsonSchema | undefined, plausible: string[]): fc.Arbitrary<[string, string][]> {
  const pairs = Object.entries(schema?.properties ?? {}).map(([name, property]) =>
    fc.option(
      valueFor(property, plausible, false).map((value): [string, string] => [name, encoded(value)]),
      { freq: 2, nil: undefined },
    ),
  );
  return fc.tuple(...pairs).map((given) => given.filter((pair) => pair !== undefined));
}

const STRANGE_PARAMETERS = ['__proto__', 'constructor', '__proto__[polluted]', 'constructor[prototype][polluted]', 'toString', 'a[]', '', 'limit', 'offset', 'x'];
const strangeParameter = fc.tuple(fc.constantFrom(...STRANGE_PARAMETERS), hostileQueryText);
const strangeTail = fc.constantFrom('&', '&&&', '=', '%', 'a=%zz', ';', '#fragment', 'a');

/** One path segment for a parameter: an id from `known`, or something no id looks like. */
export function pathSegment(known: string[]): fc.Arbitrary<string> {
  const hostile = fc.oneof(
    hostileText.filter((text) => text.length < 400).map(encoded),
    fc.constantFrom('%', '%zz', '%2F', '..', '.', '%2e%2e', '%00', '%0D%0A', 'a'.repeat(101), '%E2%80%AE', '%C0%AF', '*', '%25'),
  );
  return known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: hostile }) : hostile;
}

/** Printable header text (what a header can carry on the wire). */
const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 }),
  fc.constantFrom('', ' ', 'a'.repeat(300), '\t', 'null', '__proto__'),
);
const extraHeaders = fc.record(
  {
    'idempotency-key': headerText,
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
    'accept-language': headerText,
    'x-forwarded-for': headerText,
    'content-encoding': fc.constantFrom('gzip', 'identity', 'x'),
  },
  { requiredKeys: [] },
);

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset="utf-8"',
  'APPLICATION/JSON',
  'application/json;',
  'application/jsonx',
  'application/problem+json',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '*/*',
  'application/json, text/plain',
  ';',
];
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>('application/json') },
  { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** JSON of the types the body schema asks for, its required fields there: what gets past the schema. */
function typedBody(schema: JsonSchema, plausible: string[]): fc.Arbitrary<string> {
  return valueFor(schema, plausible, false).map(toJson);
}

/** A body for a route whose body schema is `schema`: its JSON (of the right types, and wrong), other JSON, text that is not JSON. */
function hostileBody(schema: JsonSchema | undefined, plausible: string[]): fc.Arbitrary<string | undefined> {
  const json = valueFor(schema ?? { type: 'object' }, plausible, true).map(toJson);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: typedBody(schema ?? { type: 'object' }, plausible) },
    { weight: 6, arbitrary: json },
    { weight: 1, arbitrary: json.map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', '[1,', 'nul', '{"a":1}}', '\u0000', '"\\ud800"', ' ', '\ufeff{}', '{"a":"\\u0000"}', '{"__proto__":{"polluted":1}}', "{'a':1}", '{"a":1,}', 'NaN') },
    { weight: 1, arbitrary: hostileText },
  );
}

type Mutation = (request: FuzzRequest) => FuzzRequest;

/** One thing wrong with a well-formed request: most often a number past what a double holds, where the route takes a number. */
function oneMutation(route: FuzzRoute, pools: FuzzPools, pathParameters: string[]): fc.Arbitrary<Mutation> {
  const declared = Object.keys(route.schema.querystring?.properties ?? {});
  const numeric = numericParameters(route.schema.querystring);
  const setParameter = (name: string, value: string): Mutation => (request) => ({ ...request, query: [...request.query.filter(([given]) => given !== name), [name, value]] });
  const mutations: fc.WeightedArbitrary<Mutation>[] = [
    { weight: 1, arbitrary: strangeParameter.map(([name, value]): Mutation => (request) => ({ ...request, query: [...request.query, [name, value]] })) },
    { weight: 1, arbitrary: hostileBody(route.schema.body, pools.plausible).map((body): Mutation => (request) => ({ ...request, body })) },
    { weight: 1, arbitrary: contentType.map((type): Mutation => (request) => ({ ...request, contentType: type })) },
    { weight: 1, arbitrary: fc.constantFrom<FuzzRequest['credentials']>('none', 'wrong').map((credentials): Mutation => (request) => ({ ...request, credentials })) },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS).map((method): Mutation => (request) => ({ ...request, method })) },
    { weight: 1, arbitrary: extraHeaders.map((headers): Mutation => (request) => ({ ...request, headers })) },
  ];
  if (numeric.length > 0) mutations.push({ weight: 4, arbitrary: fc.tuple(fc.constantFrom(...numeric), fc.constantFrom(...NUMBERS_AS_TEXT)).map(([name, value]) => setParameter(name, value)) });
  if (declared.length > 0) mutations.push({ weight: 1, arbitrary: fc.tuple(fc.constantFrom(...declared), hostileQueryText).map(([name, value]) => setParameter(name, value)) });
  pathParameters.forEach((name, index) =>
    mutations.push({
      weight: 1,
      arbitrary: pathSegment(pools.known[name] ?? []).map((segment): Mutation => (request) => ({ ...request, segments: request.segments.map((given, at) => (at === index ? segment : given)) })),
    }),
  );
  return fc.oneof(...mutations);
}

/**
 * Requests to `route`: a fifth well formed (its method, valid credentials,
 * ids of real rows, parameters and a body of the types its schema asks for,
 * JSON), two fifths well formed but for one thing, two fifths hostile
 * anywhere.
 */
export function requestsFor(route: FuzzRoute, pools: FuzzPools): fc.Arbitrary<FuzzRequest> {
  const pathParameters = [...route.url.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((match) => match[1] ?? '*');
  const declared = Object.keys(route.schema.querystring?.properties ?? {});
  const wellFormed = fc
    .record({
      segments: fc.tuple(...pathParameters.map((name) => (pools.known[name] ? fc.constantFrom(...pools.known[name]) : pathSegment([])))),
      query: typedQuery(route.schema.querystring, pools.plausible),
      body: route.schema.body ? typedBody(route.schema.body, pools.plausible) : fc.constant(undefined),
    })
    .map((parts): FuzzRequest => ({ route, method: route.method, ...parts, queryTail: '', contentType: 'application/json', credentials: 'valid', headers: {} }));
  const almost = fc.tuple(wellFormed, oneMutation(route, pools, pathParameters)).map(([request, mutate]) => mutate(request));
  const hostile = fc
    .record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      segments: fc.tuple(...pathParameters.map((name) => pathSegment(pools.known[name] ?? []))),
      query: fc.oneof(
        { weight: 4, arbitrary: fc.constant<[string, string][]>([]) },
        { weight: 1, arbitrary: fc.array(strangeParameter, { minLength: 1, maxLength: 3 }) },
        { weight: declared.length > 0 ? 1 : 0, arbitrary: fc.array(fc.tuple(fc.constantFrom(...(declared.length > 0 ? declared : ['x'])), hostileQueryText), { minLength: 1, maxLength: 3 }) },
      ),
      queryTail: fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: strangeTail }),
      body: hostileBody(route.schema.body, pools.plausible),
      contentType,
      credentials: fc.constantFrom<FuzzRequest['credentials']>('valid', 'valid', 'valid', 'none', 'wrong'),
      headers: extraHeaders,
    })
    .map((parts): FuzzRequest => ({ route, ...parts }));
  return fc.oneof({ weight: 1, arbitrary: wellFormed }, { weight: 2, arbitrary: almost }, { weight: 2, arbitrary: hostile });
}
