/**
 * @module view/load-nunjucks
 * `loadNunjucks()`: the template engine, loaded by the first render rather than when the
 * framework starts (about 0.6 MB of heap that a JSON-only process never needs).
 */
import type nunjucks from 'nunjucks'
import { lazyModule } from '../support/lazy-module.js'

export const loadNunjucks = lazyModule<typeof nunjucks>('nunjucks')
