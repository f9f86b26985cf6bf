/**
 * @module view/template-name
 * Template names as people write them: `auth/login`, `auth/login.html` and `auth.login` all mean
 * the file `auth/login.html` under a templates folder.
 */
import { FrameworkError } from '../foundation/framework-error.js'

const EXTENSIONS = ['.html', '.njk', '.nunjucks', '.txt', '.xml', '.svg']

/** The template file for a view name; rejects absolute paths and `..` segments. */
export function resolveTemplateName(name: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw badName(String(name))
  let base = name.trim().replace(/\\/g, '/')
  const extension = EXTENSIONS.find((ext) => base.toLowerCase().endsWith(ext))
  if (extension) base = base.slice(0, -extension.length)
  if (!base.includes('/')) base = base.replace(/\./g, '/')
  const file = base + (extension ?? '.html')
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw badName(name)
  }
  return file
}

function badName(name: string): FrameworkError {
  return new FrameworkError('E_VIEW_NAME', `"${name}" is not a template name: use a path inside templates/, such as "auth/login" or "auth.login".`)
}
