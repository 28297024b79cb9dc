// openApiDocument (./document.js) is not re-exported: it builds the app, which imports this folder.
export { DOCS_PREFIX, OPENAPI_PATH, registerOpenApi } from './register.js';
export { apiResponses, BODY_ERRORS, Deleted, ErrorEnvelope, Nullable, Ok, Tags, Timestamp, TOTAL_COUNT } from './responses.js';
