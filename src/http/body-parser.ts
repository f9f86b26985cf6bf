/**
 * @module http/body-parser
 * Reads and parses a request body once, before any middleware runs: JSON (prototype keys
 * removed), url-encoded forms (repeated keys become arrays), nothing else. Over the limit → 413,
 * malformed JSON or a body that is not an object → 400, other content types with a body → 415.
 */
import type { IncomingMessage } from 'node:http'
import getRawBody from 'raw-body'
import sjson from 'secure-json-parse'
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js'
import { parseQueryString, type InputBag } from './request.js'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

export async function readBody(raw: IncomingMessage, limit = DEFAULT_BODY_LIMIT): Promise<InputBag> {
  const declared = raw.headers['content-length']
  const chunked = raw.headers['transfer-encoding'] !== undefined
  if (!chunked && (declared === undefined || declared === '0')) return Object.create(null)
  if (declared !== undefined && Number(declared) > limit) {
    raw.resume()
    throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`)
  }
  const type = (raw.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  const isJson = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
  const isForm = type === 'application/x-www-form-urlencoded'
  let text: string
  try {
    text = await getRawBody(raw, { limit, encoding: 'utf8', length: declared })
  } catch (error) {
    const e = error as { type?: string; status?: number }
    if (e.type === 'entity.too.large' || e.status === 413) throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`)
    throw new BadRequestError('The request body could not be read.', { cause: error })
  }
  if (text.length === 0) return Object.create(null)
  if (isJson) return parseJsonObject(text)
  if (isForm) return parseQueryString(text)
  throw new UnsupportedMediaTypeError('Send the body as application/json or application/x-www-form-urlencoded.')
}

function parseJsonObject(text: string): InputBag {
  let value: unknown
  try {
    value = sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
  } catch {
    throw new BadRequestError('Malformed JSON in the request body.')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError('The JSON body must be an object.')
  }
  return Object.assign(Object.create(null), value) as InputBag
}
