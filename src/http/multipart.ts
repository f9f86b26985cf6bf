/**
 * @module http/multipart
 * The fields of a `multipart/form-data` body (what a browser's `FormData` and `curl -F` send), by
 * @fastify/busboy, read from the already size-limited body. Fields become input like url-encoded
 * ones (repeated keys → arrays, prototype keys dropped). Trowel stores no uploads: a part carrying
 * a file is refused with 415, a malformed body with 400, more than 1,000 parts with 413.
 */
import type { Busboy as BusboyType } from '@fastify/busboy'
import { lazyModule } from '../support/lazy-module.js'
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js'
import { addField, type InputBag } from './request.js'

/** Loaded by the first multipart body (about 0.7 MB of heap a JSON API never needs). */
const busboy = lazyModule<{ Busboy: typeof BusboyType }>('@fastify/busboy')

const MAX_PARTS = 1000

export function parseMultipart(body: Buffer, contentType: string): Promise<InputBag> {
  // Loaded outside the try: a library that cannot load is the server's fault (500), not the body's.
  const { Busboy } = busboy()
  return new Promise((resolve, reject) => {
    let parser: InstanceType<typeof BusboyType>
    try {
      parser = new Busboy({
        headers: { 'content-type': contentType },
        limits: { parts: MAX_PARTS, fields: MAX_PARTS, fieldSize: body.length, fieldNameSize: 1024 },
      })
    } catch (error) {
      reject(new BadRequestError('The multipart body has no valid boundary.', { cause: error }))
      return
    }
    const out: InputBag = Object.create(null)
    let failure: Error | undefined
    parser.on('field', (name: string, value: string) => {
      if (!failure) addField(out, name, value)
    })
    parser.on('file', (_name: string, stream: NodeJS.ReadableStream, filename: string | undefined) => {
      stream.resume()
      // An empty file input is sent as a part with no file name and no content: nothing to refuse.
      if (filename) failure ??= new UnsupportedMediaTypeError('File uploads are not supported: send form fields only.')
    })
    const tooMany = () => (failure ??= new PayloadTooLargeError(`A multipart body may have at most ${MAX_PARTS} parts.`))
    parser.on('partsLimit', tooMany)
    parser.on('fieldsLimit', tooMany)
    parser.on('error', (error: unknown) => reject(new BadRequestError('Malformed multipart body.', { cause: error })))
    parser.on('finish', () => (failure ? reject(failure) : resolve(out)))
    parser.end(body)
  })
}
