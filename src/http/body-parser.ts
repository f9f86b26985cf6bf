/**
 * @module http/body-parser
 * Reads and parses a request body once, before the route's middleware runs: JSON (prototype keys
 * removed), url-encoded forms (repeated keys become arrays), multipart form fields (no files).
 * Over the limit → 413, malformed JSON or a body that is not an object → 400, other content types
 * with a body → 415 (refused before the body is read).
 */
import type { IncomingMessage } from 'node:http'
import type getRawBodyType from 'raw-body'
import sjson from 'secure-json-parse'
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js'
import { parseQueryString, type InputBag } from './request.js'
import { parseMultipart } from './multipart.js'
import { lazyModule } from '../support/lazy-module.js'

/** Loaded by the first request with a body (raw-body and iconv-lite: about 0.6 MB of heap). */
const getRawBody = lazyModule<typeof getRawBodyType>('raw-body')

export const DEFAULT_BODY_LIMIT = 1024 * 1024
/**
 * The body limit of the routes that take a password or a code (`RouteDefinition.bodyLimit`): their
 * fields are at most a few kilobytes (an identifier ≤ 320 bytes, a password ≤ 4,096), so 16 KiB
 * leaves room for the CSRF token and the other fields while a flood of megabyte bodies is refused
 * before it is read.
 */
export const CREDENTIAL_BODY_LIMIT = 16 * 1024
/** Deeper JSON is refused: serializing or validating it recursively would overflow the stack. */
export const MAX_JSON_DEPTH = 64

/** At most this much of a refused body is read and dropped before the answer (see drain). */
const DRAIN_BYTES = 8 * 1024 * 1024
const DRAIN_MS = 2000

/**
 * Reads and drops a body that is refused unread, before the answer is sent: answering while the
 * client is still sending, then closing the connection, resets it, and the client (still
 * writing) often never sees the answer (EPIPE, ECONNRESET). Bounded in bytes and time: past
 * them the answer goes out anyway.
 */
function drain(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    let seen = 0
    const done = () => {
      clearTimeout(timer)
      raw.off('data', count)
      raw.off('end', done)
      raw.off('close', done)
      raw.off('error', done)
      resolve()
    }
    const count = (chunk: Buffer) => {
      seen += chunk.length
      if (seen > DRAIN_BYTES) done()
    }
    const timer = setTimeout(done, DRAIN_MS)
    raw.on('data', count)
    raw.once('end', done)
    raw.once('close', done)
    raw.once('error', done)
    raw.resume()
  })
}

export async function readBody(raw: IncomingMessage, limit = DEFAULT_BODY_LIMIT): Promise<InputBag> {
  const declared = raw.headers['content-length']
  const chunked = raw.headers['transfer-encoding'] !== undefined
  if (!chunked && (declared === undefined || declared === '0')) return Object.create(null)
  if (declared !== undefined && Number(declared) > limit) {
    await drain(raw)
    throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`)
  }
  const contentType = raw.headers['content-type'] ?? ''
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  const isJson = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
  const isForm = type === 'application/x-www-form-urlencoded'
  const isMultipart = type === 'multipart/form-data'
  if (!isJson && !isForm && !isMultipart) {
    await drain(raw)
    throw new UnsupportedMediaTypeError('Send the body as application/json, application/x-www-form-urlencoded or multipart/form-data.')
  }
  let buffer: Buffer
  // Loaded outside the try: a library that cannot load is the server's fault (500), not the body's.
  const read = getRawBody()
  try {
    buffer = await read(raw, { limit, length: declared })
  } catch (error) {
    const e = error as { type?: string; status?: number }
    if (e.type === 'entity.too.large' || e.status === 413) {
      // A body with no declared length, stopped at the limit: what is kept so far is dropped, and
      // the rest is read and dropped too, as for a declared one.
      await drain(raw)
      throw new PayloadTooLargeError(`Request body is larger than ${limit} bytes.`)
    }
    throw new BadRequestError('The request body could not be read.', { cause: error })
  }
  if (buffer.length === 0) return Object.create(null)
  if (isMultipart) return parseMultipart(buffer, contentType)
  const text = buffer.toString('utf8')
  return isJson ? parseJsonObject(text) : parseQueryString(text)
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
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    throw new BadRequestError(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`)
  }
  return Object.assign(Object.create(null), value) as InputBag
}

/** True when `root` has objects or arrays nested more than `max` levels deep (walked without recursion). */
function nestedDeeperThan(root: object, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (depth > max) return true
    for (const child of Object.values(value as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}
