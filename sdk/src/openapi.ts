/**
 * Generated from Mailroom's OpenAPI document (GET /v1/openapi.json) by
 * `npm run sdk:generate` (sdk/scripts/generate.mjs, openapi-typescript). Do not edit:
 * change the route schemas and regenerate. src/types.ts names what the SDK uses.
 */

export interface paths {
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health check (no key, no envelope) */
        get: operations["checkHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send an e-mail */
        post: operations["sendEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send 1 to 100 e-mails at once, all or nothing */
        post: operations["sendBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List and search log entries, newest first */
        get: operations["listLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics of the workspace, all time or over a range */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/stats/timeseries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics per hour or day, zero-filled, oldest first */
        get: operations["getStatsTimeseries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/stats/engagement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Opens and clicks of tracked mail, all time or over a range (whole hours) */
        get: operations["getEngagementStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/stats/engagement/timeseries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Opens and clicks per hour or day, zero-filled, oldest first */
        get: operations["getEngagementTimeseries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message and what became of each recipient */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a scheduled send before it is due */
        post: operations["cancelMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message's HTML, text and MIME as handed over */
        get: operations["getMessageContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the domains */
        get: operations["listDomains"];
        put?: never;
        /** Add a domain */
        post: operations["createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A domain and its DNS records */
        get: operations["getDomain"];
        put?: never;
        post?: never;
        /** Delete a domain */
        delete: operations["deleteDomain"];
        options?: never;
        head?: never;
        /** Set the domain's route through the workspace's upstreams, its tracking switches and tracking domain */
        patch: operations["updateDomain"];
        trace?: never;
    };
    "/v1/domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Look the domain's records up over DNS */
        post: operations["verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/upstreams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's upstreams, with their health */
        get: operations["listUpstreams"];
        put?: never;
        /** Add an SMTP relay or an SES account */
        post: operations["createUpstream"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/upstreams/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An upstream and its health */
        get: operations["getUpstream"];
        put?: never;
        post?: never;
        /** Delete an upstream no domain routes through */
        delete: operations["deleteUpstream"];
        options?: never;
        head?: never;
        /** Change an upstream */
        patch: operations["updateUpstream"];
        trace?: never;
    };
    "/v1/upstreams/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Connect and authenticate, sending nothing */
        post: operations["testUpstream"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the API keys, masked */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an API key */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the suppression list, newest first */
        get: operations["listSuppressions"];
        put?: never;
        /** Add an address to the suppression list */
        post: operations["createSuppression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions/{email}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look an address up */
        get: operations["getSuppression"];
        put?: never;
        post?: never;
        /** Remove an address from the suppression list */
        delete: operations["deleteSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the webhook endpoints */
        get: operations["listWebhooks"];
        put?: never;
        /** Add a webhook endpoint */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint and its latest deliveries */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /** Delete an endpoint */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace an endpoint's secret */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Post a delivery again, now */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the templates, newest first */
        get: operations["listTemplates"];
        put?: never;
        /** Create a template (a draft) or a layout */
        post: operations["createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A template and its current content */
        get: operations["getTemplate"];
        put?: never;
        post?: never;
        /** Delete a template and its versions */
        delete: operations["deleteTemplate"];
        options?: never;
        head?: never;
        /** Edit the draft (made from the published version when there is none) */
        patch: operations["updateTemplate"];
        trace?: never;
    };
    "/v1/templates/{id}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish the draft as the next version */
        post: operations["publishTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/duplicate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy a template as a new draft */
        post: operations["duplicateTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every published version, newest first */
        get: operations["listTemplateVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/render": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Render a version with variables, as a send would */
        post: operations["renderTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inbound/ses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * SES's events through an SNS HTTPS subscription (no API key: the SNS signature is checked)
         * @description See docs/ses-notifications.md. SNS posts with `Content-Type: text/plain; charset=UTF-8`; the body is its JSON message.
         */
        post: operations["receiveSesNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document of the API. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    checkHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The store (and Redis, when configured) answered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description Something the process needs did not answer within 2 s: `down` names it. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "unavailable";
                        down: ("database" | "redis")[];
                    };
                };
            };
        };
    };
    sendEmail: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 256 characters: a retry with the same key and body answers the first response again (24 hours). */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    to: string[];
                    cc?: string[] | null;
                    bcc?: string[] | null;
                    from_email?: string;
                    subject?: string;
                    html?: string | null;
                    text?: string | null;
                    reply_to?: string | string[] | null;
                    headers?: {
                        [key: string]: string;
                    } | null;
                    tags?: {
                        name: string;
                        value: string;
                    }[] | null;
                    scheduled_at?: string | null;
                    attachments?: {
                        filename: string;
                        content: string;
                        content_type?: string | null;
                        content_id?: string | null;
                    }[] | null;
                    template?: {
                        /** @description tpl_… or the alias */
                        id: string;
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                        version?: number | null;
                    } | null;
                    track_opens?: boolean | null;
                    track_clicks?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description msg_…: correlates log entries and webhook events with this send. */
                            message_id: string;
                            /** @enum {string} */
                            status: "sent" | "suppressed" | "failed";
                            /** @description Why the send failed (with status failed only). */
                            error?: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    sendBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 256 characters: a retry with the same key and body answers the first response again (24 hours). */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    to: string[];
                    cc?: string[] | null;
                    bcc?: string[] | null;
                    from_email?: string;
                    subject?: string;
                    html?: string | null;
                    text?: string | null;
                    reply_to?: string | string[] | null;
                    headers?: {
                        [key: string]: string;
                    } | null;
                    tags?: {
                        name: string;
                        value: string;
                    }[] | null;
                    scheduled_at?: string | null;
                    attachments?: {
                        filename: string;
                        content: string;
                        content_type?: string | null;
                        content_id?: string | null;
                    }[] | null;
                    template?: {
                        /** @description tpl_… or the alias */
                        id: string;
                        variables?: {
                            [key: string]: unknown;
                        } | null;
                        version?: number | null;
                    } | null;
                    track_opens?: boolean | null;
                    track_clicks?: boolean | null;
                }[];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description msg_…: correlates log entries and webhook events with this send. */
                            message_id: string;
                            /** @enum {string} */
                            status: "sent" | "suppressed" | "failed";
                            /** @description Why the send failed (with status failed only). */
                            error?: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listLogs: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                before?: string;
                type?: "send" | "bounce" | "complaint";
                status?: "sent" | "delivered" | "bounced" | "complained" | "suppressed" | "failed";
                message_id?: string;
                to?: string;
                from_email?: string;
                since?: string;
                until?: string;
                tag?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Entries matching the filter, over all pages. */
                    "X-Total-Count": number;
                    /** @description `gte` when the total of a search by message, recipient, sender or tag was capped (X-Total-Count is then a lower bound). */
                    "X-Total-Count-Relation"?: "eq" | "gte";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description log_… */
                            id: string;
                            /** @enum {string} */
                            type: "send" | "bounce" | "complaint";
                            /** @enum {string} */
                            status: "sent" | "delivered" | "bounced" | "complained" | "suppressed" | "failed";
                            to: string;
                            /** @description The sender's bare address. */
                            from_email: string;
                            subject: string;
                            message_id: string;
                            error: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description The send's tags as one object, `{}` when none. */
                            tags: {
                                [key: string]: string;
                            };
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getStats: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            total_sent: number;
                            delivered: number;
                            bounced: number;
                            complained: number;
                            suppressed: number;
                            failed: number;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getStatsTimeseries: {
        parameters: {
            query?: {
                interval?: "hour" | "day";
                since?: string;
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            bucket_start: string;
                            total_sent: number;
                            delivered: number;
                            bounced: number;
                            complained: number;
                            suppressed: number;
                            failed: number;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getEngagementStats: {
        parameters: {
            query?: {
                since?: string;
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description People's opens (Gmail's proxied ones among them), every time. */
                            opened: number;
                            /** @description Recipients whose first open by a person fell in the range. */
                            unique_opened: number;
                            /** @description People's clicks, every time. */
                            clicked: number;
                            /** @description Recipients whose first click by a person fell in the range. */
                            unique_clicked: number;
                            /** @description Opens by machines: Apple Mail Privacy Protection's prefetches, scanners (docs/tracking.md). */
                            machine_opened: number;
                            /** @description Clicks by machines: link scanners' pre-clicks. */
                            machine_clicked: number;
                            /** @description Recipients handed over with open tracking on: what open rates are of. */
                            tracked_opens: number;
                            /** @description Recipients handed over with click tracking on: what click rates are of. */
                            tracked_clicks: number;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getEngagementTimeseries: {
        parameters: {
            query?: {
                interval?: "hour" | "day";
                since?: string;
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            bucket_start: string;
                            /** @description People's opens (Gmail's proxied ones among them), every time. */
                            opened: number;
                            /** @description Recipients whose first open by a person fell in the range. */
                            unique_opened: number;
                            /** @description People's clicks, every time. */
                            clicked: number;
                            /** @description Recipients whose first click by a person fell in the range. */
                            unique_clicked: number;
                            /** @description Opens by machines: Apple Mail Privacy Protection's prefetches, scanners (docs/tracking.md). */
                            machine_opened: number;
                            /** @description Clicks by machines: link scanners' pre-clicks. */
                            machine_clicked: number;
                            /** @description Recipients handed over with open tracking on: what open rates are of. */
                            tracked_opens: number;
                            /** @description Recipients handed over with click tracking on: what click rates are of. */
                            tracked_clicks: number;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            from_email: string;
                            /** @description The sender's display name, or '' when it has none. */
                            from_name: string;
                            reply_to: string | null;
                            cc: string[];
                            bcc: string[];
                            subject: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            scheduled_at: string | null;
                            template_id: string | null;
                            template_version: number | null;
                            size_bytes: number | null;
                            has_html: boolean;
                            has_text: boolean;
                            content_expired_at: string | null;
                            /** @description The send's tags as one object, `{}` when none. */
                            tags: {
                                [key: string]: string;
                            };
                            attachments: {
                                filename: string;
                                content_type: string;
                                content_id: string | null;
                                /** @description Bytes, decoded. */
                                size: number;
                            }[];
                            recipients: {
                                to: string;
                                /** @enum {string} */
                                status: "sent" | "delivered" | "bounced" | "complained" | "suppressed" | "failed";
                                error: string | null;
                                events: {
                                    type: string;
                                    status: string;
                                    /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                                    at: string;
                                    detail: string | null;
                                    /** @description `opened` and `clicked` only (their status is `delivered`: they move no status). */
                                    engagement?: {
                                        /** @description `clicked`: the link's original URL. */
                                        url?: string;
                                        user_agent: string | null;
                                        ip: string | null;
                                        /** @description Made by a machine (a mailbox proxy prefetching, a link scanner), not a person (docs/tracking.md#what-counts-as-a-machine). */
                                        machine: boolean;
                                        /** @description `opened`: fetched by a mailbox provider's image proxy as its reader opened the mail (Gmail's). */
                                        proxy?: boolean;
                                        machine_rule: string | null;
                                    };
                                }[];
                                attempts: {
                                    attempt: number;
                                    /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                                    at: string;
                                    /** @description `delivered`, `accepted`, `temporary`, `permanent`, `failed` or `suppressed`. */
                                    outcome: string;
                                    /** @description The provider's or the upstream's reply, or why no hand-over was made. */
                                    reply: string;
                                    duration_ms: number | null;
                                    /** @description `sandbox`, `smtp`, `ses`, or `inbound` for a soft bounce reported later. */
                                    provider: string;
                                    provider_message_id: string | null;
                                    upstream: string | null;
                                }[];
                                note: string | null;
                            }[];
                            webhook_deliveries: {
                                id: string;
                                webhook_id: string;
                                event: string;
                                /** @enum {string} */
                                status: "pending" | "delivered" | "failed";
                                attempts: number;
                                last_response_status: number | null;
                                next_attempt_at: string | null;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    cancelMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            message_id: string;
                            canceled_recipients: number;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            canceled_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getMessageContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            html: string | null;
                            text: string | null;
                            raw: string | null;
                            raw_unavailable_reason: string | null;
                            content_expired_at: string | null;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listDomains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description dom_… */
                            id: string;
                            domain: string;
                            /** @enum {string} */
                            status: "pending" | "verified" | "failed";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createDomain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    domain: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description dom_… */
                            id: string;
                            domain: string;
                            /** @enum {string} */
                            status: "pending" | "verified" | "failed";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            verified_at: string | null;
                            last_checked_at: string | null;
                            error: string | null;
                            records: {
                                /** @enum {string} */
                                type: "TXT" | "MX" | "CNAME";
                                name: string;
                                value: string;
                                /** @description MX only. */
                                priority?: number;
                                /**
                                 * @description `tracking`: the CNAME of `tracking_domain`, last, while the domain names one.
                                 * @enum {string}
                                 */
                                purpose: "dkim" | "spf" | "return_path_mx" | "return_path_spf" | "dmarc" | "tracking";
                                check?: {
                                    found: boolean;
                                    matches: boolean;
                                    values: string[];
                                    error?: string;
                                };
                            }[];
                            /** @description The workspace's upstreams a send from the domain goes through, in order (docs/upstreams.md); empty: the server's. */
                            upstream_ids: string[];
                            /** @description Whether its messages' opens are tracked, unless a send says otherwise (docs/domains.md#tracking). */
                            open_tracking: boolean;
                            /** @description Whether its messages' links are tracked, unless a send says otherwise. */
                            click_tracking: boolean;
                            tracking_domain: string | null;
                            tracking_domain_status: ("pending" | "verified" | "failed") | null;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description dom_… */
                            id: string;
                            domain: string;
                            /** @enum {string} */
                            status: "pending" | "verified" | "failed";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            verified_at: string | null;
                            last_checked_at: string | null;
                            error: string | null;
                            records: {
                                /** @enum {string} */
                                type: "TXT" | "MX" | "CNAME";
                                name: string;
                                value: string;
                                /** @description MX only. */
                                priority?: number;
                                /**
                                 * @description `tracking`: the CNAME of `tracking_domain`, last, while the domain names one.
                                 * @enum {string}
                                 */
                                purpose: "dkim" | "spf" | "return_path_mx" | "return_path_spf" | "dmarc" | "tracking";
                                check?: {
                                    found: boolean;
                                    matches: boolean;
                                    values: string[];
                                    error?: string;
                                };
                            }[];
                            /** @description The workspace's upstreams a send from the domain goes through, in order (docs/upstreams.md); empty: the server's. */
                            upstream_ids: string[];
                            /** @description Whether its messages' opens are tracked, unless a send says otherwise (docs/domains.md#tracking). */
                            open_tracking: boolean;
                            /** @description Whether its messages' links are tracked, unless a send says otherwise. */
                            click_tracking: boolean;
                            tracking_domain: string | null;
                            tracking_domain_status: ("pending" | "verified" | "failed") | null;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    updateDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    upstream_ids?: string[];
                    open_tracking?: boolean;
                    click_tracking?: boolean;
                    tracking_domain?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description dom_… */
                            id: string;
                            domain: string;
                            /** @enum {string} */
                            status: "pending" | "verified" | "failed";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            verified_at: string | null;
                            last_checked_at: string | null;
                            error: string | null;
                            records: {
                                /** @enum {string} */
                                type: "TXT" | "MX" | "CNAME";
                                name: string;
                                value: string;
                                /** @description MX only. */
                                priority?: number;
                                /**
                                 * @description `tracking`: the CNAME of `tracking_domain`, last, while the domain names one.
                                 * @enum {string}
                                 */
                                purpose: "dkim" | "spf" | "return_path_mx" | "return_path_spf" | "dmarc" | "tracking";
                                check?: {
                                    found: boolean;
                                    matches: boolean;
                                    values: string[];
                                    error?: string;
                                };
                            }[];
                            /** @description The workspace's upstreams a send from the domain goes through, in order (docs/upstreams.md); empty: the server's. */
                            upstream_ids: string[];
                            /** @description Whether its messages' opens are tracked, unless a send says otherwise (docs/domains.md#tracking). */
                            open_tracking: boolean;
                            /** @description Whether its messages' links are tracked, unless a send says otherwise. */
                            click_tracking: boolean;
                            tracking_domain: string | null;
                            tracking_domain_status: ("pending" | "verified" | "failed") | null;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    verifyDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description dom_… */
                            id: string;
                            domain: string;
                            /** @enum {string} */
                            status: "pending" | "verified" | "failed";
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            verified_at: string | null;
                            last_checked_at: string | null;
                            error: string | null;
                            records: {
                                /** @enum {string} */
                                type: "TXT" | "MX" | "CNAME";
                                name: string;
                                value: string;
                                /** @description MX only. */
                                priority?: number;
                                /**
                                 * @description `tracking`: the CNAME of `tracking_domain`, last, while the domain names one.
                                 * @enum {string}
                                 */
                                purpose: "dkim" | "spf" | "return_path_mx" | "return_path_spf" | "dmarc" | "tracking";
                                check?: {
                                    found: boolean;
                                    matches: boolean;
                                    values: string[];
                                    error?: string;
                                };
                            }[];
                            /** @description The workspace's upstreams a send from the domain goes through, in order (docs/upstreams.md); empty: the server's. */
                            upstream_ids: string[];
                            /** @description Whether its messages' opens are tracked, unless a send says otherwise (docs/domains.md#tracking). */
                            open_tracking: boolean;
                            /** @description Whether its messages' links are tracked, unless a send says otherwise. */
                            click_tracking: boolean;
                            tracking_domain: string | null;
                            tracking_domain_status: ("pending" | "verified" | "failed") | null;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listUpstreams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ups_… */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            type: "smtp" | "ses";
                            /** @description smtp: the URL, its password masked. */
                            url?: string;
                            /** @enum {string} */
                            starttls?: "opportunistic" | "required" | "never";
                            region?: string;
                            /** @description ses: masked. */
                            access_key_id?: string;
                            configuration_set?: string | null;
                            endpoint?: string | null;
                            /** @enum {string} */
                            health: "healthy" | "degraded" | "down";
                            last_error: string | null;
                            last_error_at: string | null;
                            /** @description Attempts through it in the last hour, by outcome (a failed-over try counts as temporary). */
                            last_hour: {
                                attempts: number;
                                accepted: number;
                                temporary: number;
                                permanent: number;
                                failed: number;
                            };
                            /** @description The domains routed through it. */
                            domains: {
                                id: string;
                                domain: string;
                            }[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createUpstream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    type: "smtp" | "ses";
                    /** @description smtp: smtp://user:password@relay.example.com:587, or smtps:// for TLS from the start. */
                    url?: string;
                    /**
                     * @description smtp: STARTTLS when offered (default), always, or never.
                     * @enum {string}
                     */
                    starttls?: "opportunistic" | "required" | "never";
                    region?: string;
                    access_key_id?: string;
                    secret_access_key?: string;
                    configuration_set?: string | null;
                    endpoint?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ups_… */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            type: "smtp" | "ses";
                            /** @description smtp: the URL, its password masked. */
                            url?: string;
                            /** @enum {string} */
                            starttls?: "opportunistic" | "required" | "never";
                            region?: string;
                            /** @description ses: masked. */
                            access_key_id?: string;
                            configuration_set?: string | null;
                            endpoint?: string | null;
                            /** @enum {string} */
                            health: "healthy" | "degraded" | "down";
                            last_error: string | null;
                            last_error_at: string | null;
                            /** @description Attempts through it in the last hour, by outcome (a failed-over try counts as temporary). */
                            last_hour: {
                                attempts: number;
                                accepted: number;
                                temporary: number;
                                permanent: number;
                                failed: number;
                            };
                            /** @description The domains routed through it. */
                            domains: {
                                id: string;
                                domain: string;
                            }[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getUpstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ups_… */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            type: "smtp" | "ses";
                            /** @description smtp: the URL, its password masked. */
                            url?: string;
                            /** @enum {string} */
                            starttls?: "opportunistic" | "required" | "never";
                            region?: string;
                            /** @description ses: masked. */
                            access_key_id?: string;
                            configuration_set?: string | null;
                            endpoint?: string | null;
                            /** @enum {string} */
                            health: "healthy" | "degraded" | "down";
                            last_error: string | null;
                            last_error_at: string | null;
                            /** @description Attempts through it in the last hour, by outcome (a failed-over try counts as temporary). */
                            last_hour: {
                                attempts: number;
                                accepted: number;
                                temporary: number;
                                permanent: number;
                                failed: number;
                            };
                            /** @description The domains routed through it. */
                            domains: {
                                id: string;
                                domain: string;
                            }[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteUpstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    updateUpstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {string} */
                    type?: "smtp" | "ses";
                    /** @description smtp: smtp://user:password@relay.example.com:587, or smtps:// for TLS from the start. */
                    url?: string;
                    /**
                     * @description smtp: STARTTLS when offered (default), always, or never.
                     * @enum {string}
                     */
                    starttls?: "opportunistic" | "required" | "never";
                    region?: string;
                    access_key_id?: string;
                    secret_access_key?: string;
                    configuration_set?: string | null;
                    endpoint?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description ups_… */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            type: "smtp" | "ses";
                            /** @description smtp: the URL, its password masked. */
                            url?: string;
                            /** @enum {string} */
                            starttls?: "opportunistic" | "required" | "never";
                            region?: string;
                            /** @description ses: masked. */
                            access_key_id?: string;
                            configuration_set?: string | null;
                            endpoint?: string | null;
                            /** @enum {string} */
                            health: "healthy" | "degraded" | "down";
                            last_error: string | null;
                            last_error_at: string | null;
                            /** @description Attempts through it in the last hour, by outcome (a failed-over try counts as temporary). */
                            last_hour: {
                                attempts: number;
                                accepted: number;
                                temporary: number;
                                permanent: number;
                                failed: number;
                            };
                            /** @description The domains routed through it. */
                            domains: {
                                id: string;
                                domain: string;
                            }[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    testUpstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            ok: boolean;
                            detail: string;
                            duration_ms: number;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            masked_key: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @enum {string} */
                            permission: "full_access" | "sending_access";
                            domain_id: string | null;
                            last_used_at: string | null;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    permission?: "full_access" | "sending_access";
                    domain_id?: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description key_… */
                            id: string;
                            name: string;
                            masked_key: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @enum {string} */
                            permission: "full_access" | "sending_access";
                            domain_id: string | null;
                            /** @description The full key: shown only in this answer. */
                            key: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                reason?: "hard_bounce" | "complaint" | "manual";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Entries matching the filter, over all pages. */
                    "X-Total-Count": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            email: string;
                            /** @enum {string} */
                            reason: "hard_bounce" | "complaint" | "manual";
                            source_message_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            email: string;
                            /** @enum {string} */
                            reason: "hard_bounce" | "complaint" | "manual";
                            source_message_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            email: string;
                            /** @enum {string} */
                            reason: "hard_bounce" | "complaint" | "manual";
                            source_message_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            email: string;
                            /** @enum {string} */
                            reason: "hard_bounce" | "complaint" | "manual";
                            source_message_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            email: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description wh_… */
                            id: string;
                            url: string;
                            events: ("delivered" | "bounced" | "complained" | "suppressed" | "failed" | "opened" | "clicked" | "upstream.down" | "upstream.up")[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            masked_secret: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    events?: string[];
                };
            };
        };
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description wh_… */
                            id: string;
                            url: string;
                            events: ("delivered" | "bounced" | "complained" | "suppressed" | "failed" | "opened" | "clicked" | "upstream.down" | "upstream.up")[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description whsec_…: shown only here and at rotation. */
                            secret: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description wh_… */
                            id: string;
                            url: string;
                            events: ("delivered" | "bounced" | "complained" | "suppressed" | "failed" | "opened" | "clicked" | "upstream.down" | "upstream.up")[];
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            masked_secret: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                            deliveries: {
                                /** @description whd_…; also the webhook-id header of every post of it. */
                                id: string;
                                event_id: string;
                                event_type: string;
                                /** @enum {string} */
                                state: "pending" | "delivered" | "failed";
                                attempts: number;
                                last_status: number | null;
                                last_error: string | null;
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                                created_at: string;
                                /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                                updated_at: string;
                            }[];
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            secret: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description whd_…; also the webhook-id header of every post of it. */
                            id: string;
                            event_id: string;
                            event_type: string;
                            /** @enum {string} */
                            state: "pending" | "delivered" | "failed";
                            attempts: number;
                            last_status: number | null;
                            last_error: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Entries matching the filter, over all pages. */
                    "X-Total-Count": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    createTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    alias?: string | null;
                    /** @enum {unknown} */
                    kind?: "template" | "layout";
                    html: string;
                    subject?: string | null;
                    text?: string | null;
                    from?: string | null;
                    reply_to?: string | null;
                    variables?: {
                        key: string;
                        /** @enum {unknown} */
                        type: "string" | "number";
                        fallback_value?: string | number | null;
                    }[];
                    layout_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    getTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    deleteTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    updateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    alias?: string | null;
                    html?: string;
                    subject?: string | null;
                    text?: string | null;
                    from?: string | null;
                    reply_to?: string | null;
                    variables?: {
                        key: string;
                        /** @enum {unknown} */
                        type: "string" | "number";
                        fallback_value?: string | number | null;
                    }[];
                    layout_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request conflicts with the current state of the resource. */
            409: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    publishTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    duplicateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            201: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tpl_… */
                            id: string;
                            /** @enum {unknown} */
                            kind: "template" | "layout";
                            name: string;
                            alias: string | null;
                            /** @enum {unknown} */
                            status: "draft" | "published";
                            published_at: string | null;
                            has_unpublished_versions: boolean;
                            /** @description tplv_…: the draft if there is one, else the published version; its content is shown. */
                            current_version_id: string;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    listTemplateVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description tplv_… */
                            id: string;
                            version: number;
                            subject: string | null;
                            html: string;
                            text: string | null;
                            from: string | null;
                            reply_to: string | null;
                            variables: {
                                key: string;
                                /** @enum {unknown} */
                                type: "string" | "number";
                                fallback_value: (string | number) | null;
                            }[];
                            layout_id: string | null;
                            /** @description ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z */
                            published_at: string;
                        }[];
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    renderTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description tpl_… or the alias */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    variables?: {
                        [key: string]: unknown;
                    };
                    /** @description A published version; by default the draft, else the published one. */
                    version?: number;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            subject: string | null;
                            html: string;
                            text: string;
                        };
                    };
                };
            };
            /** @description The request is not valid: the sentence names the field, query parameter or header. */
            400: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The API key is missing or invalid: "Invalid or missing API key". */
            401: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from. */
            403: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description No such resource in this workspace. */
            404: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than 8192 bytes. */
            414: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is not JSON. */
            415: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded". */
            429: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset": number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure; the message says nothing more ("Internal server error"). */
            500: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds. */
            503: {
                headers: {
                    /** @description Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace's recipients per minute, the recipients allowed. */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window (on a 429 of the recipients per minute, recipients). */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Unix time (seconds) at which the window ends. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
    receiveSesNotification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description SNS's JSON message: Type (Notification, SubscriptionConfirmation, UnsubscribeConfirmation), MessageId, TopicArn, Subject, Message, Timestamp, SignatureVersion, Signature, SigningCertURL, SubscribeURL, Token, UnsubscribeURL. */
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description A valid notification: recorded (`received`, applied right after this answer), seen before (`duplicate`), a subscription being confirmed (`confirming`) or an unsubscription logged (`logged`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description SNS's MessageId. */
                            message_id: string;
                            /** @enum {string} */
                            outcome: "received" | "duplicate" | "confirming" | "logged";
                        };
                    };
                };
            };
            /** @description A query parameter (the path takes none), or an application/json body that is not JSON. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description Not a valid SNS notification from an allowed topic: the sentence says which check failed (SES_SNS_TOPIC_ARNS unset, topic, timestamp, certificate host, signature). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The request URL is longer than the API reads. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The body is neither text/plain nor JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description An unexpected failure ("Internal server error"); SNS tries again. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
            /** @description The database did not answer; SNS tries again. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @description A human-readable sentence saying what went wrong. */
                        error: string;
                        /** @description On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key. */
                        hint?: string;
                    };
                };
            };
        };
    };
}
