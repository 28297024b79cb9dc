export { createMessageDetailService, type MessageContent, type MessageDetail } from './message-detail-service.js';
export { default as messageRoutes } from './message-routes.js';
