/**
 * @module http/status-text
 * The reason phrase of a status: node's table, plus the one framework status it lacks
 * (419, Laravel's "Page Expired" for a missing or stale CSRF token).
 */
import { STATUS_CODES } from 'node:http'

const EXTRA: Record<number, string> = { 419: 'Page Expired' }

/** The phrase node does not know, or undefined (node's own is then used). */
export function extraStatusText(status: number): string | undefined {
  return EXTRA[status]
}

/** The reason phrase of `status` ("Not Found", "Page Expired"), or "Error". */
export function statusText(status: number): string {
  return STATUS_CODES[status] ?? EXTRA[status] ?? 'Error'
}
