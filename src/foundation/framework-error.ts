/**
 * @module foundation/framework-error
 * `FrameworkError` lives in `support/` (the container, events, http and routing throw it too);
 * re-exported here, where the framework's providers and features have always imported it.
 */
export { FrameworkError } from '../support/framework-error.js'
