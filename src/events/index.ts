/** Message events: their shape and payload, and the one path every source publishes them on (DESIGN.md §3). */
export { publishEvents, type EventHandler } from './event-path.js';
export { eventAbout, eventPayload, HARD_BOUNCE_SUBTYPES, type EngagementDetail, type MessageEvent } from './message-event.js';
export { createMessageEventsRepository } from './message-events-repository.js';
