/**
 * @module view
 * Nunjucks views: `ViewFactory`, the per-request `ContextView` (`ctx.view`), and the error page.
 */
export { ViewFactory, type ViewFactoryOptions, type UrlFor } from './view-factory.js'
export { ContextView, type ViewRenderOptions } from './context-view.js'
export { ViewProvider } from './view-provider.js'
export { renderErrorPage, type ErrorPageData } from './error-page.js'
export { resolveTemplateName } from './template-name.js'
export { TemplateRenderError, locateTemplateError, type TemplateLocation } from './template-error.js'
export { markup, lazyMarkup, type Markup } from './lazy-markup.js'
export { FRAMEWORK_TEMPLATES_DIR } from './framework-templates.js'
