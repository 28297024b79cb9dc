/** Templates: the resource and its versions, the language, previews, and rendering a send's content. */
export { default as templateRoutes, TemplateCreateBody, TemplateRenderBody, TemplateUpdateBody, TemplateVariableDeclaration, TemplateVariables } from './template-routes.js';
export { createTemplateService, type TemplateCreateInput, type TemplateUpdateInput, type TemplateService } from './template-service.js';
export { createTemplateRenderService, type RenderedSend, type TemplateReference } from './template-render-service.js';
export { type TemplateView, type TemplateVersionView } from './template-view.js';
export { createTemplatesRepository } from './templates-repository.js';
export { MAX_TEMPLATE_BYTES, MAX_RENDER_BYTES, MAX_RENDER_MS } from './template-language.js';
