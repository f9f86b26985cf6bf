/**
 * @module session/csrf-field
 * `csrfField(session)`: the hidden form field every state-changing web form carries.
 */
import type { Session } from './session.js'

/** `<input type="hidden" name="__token" value="...">` with the session's CSRF token. */
export function csrfField(session: Pick<Session, 'token'>): string {
  return `<input type="hidden" name="__token" value="${escapeAttribute(session.token())}">`
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
