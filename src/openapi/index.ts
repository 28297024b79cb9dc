// The schemas every route's responses are described with. registerOpenApi (./register.js) is for the
// app alone, and openApiDocument (./document.js) builds the app: neither is re-exported, so what loads
// a route's schema (a worker thread too) loads no Swagger.
export { type ErrorStatus, apiResponses, BODY_ERRORS, Deleted, ErrorEnvelope, Nullable, Ok, Tags, Timestamp, TOTAL_COUNT, retryAfter } from './responses.js';
