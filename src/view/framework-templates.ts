/**
 * @module view/framework-templates
 * Where the framework's own templates (error pages) live: `templates/` at the root of the trowel
 * package, two levels above this file in both `src/view/` and `dist/view/`.
 */
import { fileURLToPath } from 'node:url'

export const FRAMEWORK_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url)).replace(/[\\/]$/, '')
