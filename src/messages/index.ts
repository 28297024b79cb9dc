export { createMessageDetailService, type MessageContent, type MessageDetail } from './message-detail-service.js';
export { default as messageRoutes } from './message-routes.js';
export { createMessageDetailRepository } from './message-detail-repository.js';
export { createMessageMimeRepository } from './message-mime-repository.js';
