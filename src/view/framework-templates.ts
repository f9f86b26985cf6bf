/**
 * @module view/framework-templates
 * Where the framework's own templates (error pages) live: `templates/` at the root of the trowel
 * package.
 */
import { join } from 'node:path'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'

export const FRAMEWORK_TEMPLATES_DIR = join(FRAMEWORK_ROOT, 'templates')
