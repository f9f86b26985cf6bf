// One autocannon run, in its own process (started pinned to the load core by common.mjs's
// `load()`). Argument: JSON options. Prints one JSON line: req/s, latency p50/p99 (ms), totals.
import autocannon from 'autocannon'

const o = JSON.parse(process.argv[2])
const result = await autocannon({
  url: o.url,
  connections: o.connections,
  duration: o.duration,
  method: o.method,
  headers: o.headers,
  body: o.body,
  timeout: o.timeout,
  pipelining: o.pipelining ?? 1,
})
const codes = {}
for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) codes[code] = count
const expected = codes[String(o.expectStatus)] ?? 0
const answered = Object.values(codes).reduce((a, b) => a + b, 0)
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected: answered - expected,
    statusCodes: codes,
  }) + '\n',
)
