/** The strict Prometheus text parser the black-box metrics tests rely on: it accepts the format and refuses what breaks it. */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parsePrometheusText, sumOf } from './prometheus-text.js'

const VALID = `# HELP http_requests_total Requests.
# TYPE http_requests_total counter
http_requests_total{method="GET",route="/a \\"b\\"\\\\c\\nd"} 3
http_requests_total{method="POST",route="/x"} 1.5e1 1700000000000
# A comment
# TYPE lag gauge
lag NaN
# TYPE d histogram
d_bucket{le="0.1",route="/"} 1
d_bucket{le="1",route="/"} 2
d_bucket{le="+Inf",route="/"} 2
d_sum{route="/"} 0.6
d_count{route="/"} 2
`

test('parses families, labels with escapes, values and timestamps', () => {
  const families = parsePrometheusText(VALID)
  assert.equal(families.get('http_requests_total')?.type, 'counter')
  assert.equal(families.get('http_requests_total')?.help, 'Requests.')
  assert.deepEqual(families.get('http_requests_total')?.samples[0], { name: 'http_requests_total', labels: { method: 'GET', route: '/a "b"\\c\nd' }, value: 3 })
  assert.equal(sumOf(families, 'http_requests_total'), 18)
  assert.ok(Number.isNaN(families.get('lag')!.samples[0]!.value))
  assert.equal(sumOf(families, 'd_count', { route: '/' }), 2)
})

test('refuses what a Prometheus server would refuse or what breaks the format', () => {
  const broken: Record<string, string> = {
    'no TYPE': 'x 1\n',
    'a bad metric name': '# TYPE 1x counter\n1x 1\n',
    'a bad label name': '# TYPE x counter\nx{1a="b"} 1\n',
    'an unquoted label value': '# TYPE x counter\nx{a=b} 1\n',
    'a bad escape': '# TYPE x counter\nx{a="\\t"} 1\n',
    'an unterminated label value': '# TYPE x counter\nx{a="b} 1\n',
    'a missing value': '# TYPE x counter\nx{a="b"}\n',
    'a bad value': '# TYPE x counter\nx 1,5\n',
    'a bad timestamp': '# TYPE x counter\nx 1 soon\n',
    'a duplicate sample': '# TYPE x counter\nx{a="1"} 1\nx{a="1"} 2\n',
    'a label twice': '# TYPE x counter\nx{a="1",a="2"} 1\n',
    'an unknown type': '# TYPE x meter\nx 1\n',
    'two TYPE lines': '# TYPE x counter\n# TYPE x counter\nx 1\n',
    'TYPE after samples': '# TYPE x counter\nx 1\n# TYPE y gauge\ny 1\n# TYPE x counter\n',
    'samples apart': '# TYPE x counter\nx{a="1"} 1\n# TYPE y gauge\ny 1\nx{a="2"} 1\n',
    'buckets not cumulative': '# TYPE d histogram\nd_bucket{le="1"} 2\nd_bucket{le="+Inf"} 1\nd_count 1\n',
    'no +Inf bucket': '# TYPE d histogram\nd_bucket{le="1"} 2\nd_count 2\n',
    'count differing from +Inf': '# TYPE d histogram\nd_bucket{le="+Inf"} 2\nd_count 3\n',
    'a bucket without le': '# TYPE d histogram\nd_bucket 2\nd_count 2\n',
  }
  for (const [what, text] of Object.entries(broken)) assert.throws(() => parsePrometheusText(text), Error, what)
})
