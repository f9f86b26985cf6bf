/**
 * @module observability/cluster-metrics
 * `/metrics` under `craft serve --workers N`: whichever worker a scrape reaches answers for the
 * whole cluster.
 *
 * - The primary (`serveClusterMetrics`, called by the serve command before it forks) holds a
 *   prom-client `AggregatorRegistry`. A worker asks it over IPC (`trowel:metrics:request`); it
 *   calls `clusterMetrics()`, which collects every worker's registry (prom-client's own IPC
 *   messages) and sums them (counters, histograms and most gauges are summed; prom-client picks
 *   the right aggregation for its process metrics), and answers (`trowel:metrics:response`).
 * - Each worker (`answerClusterScrapes` as early as possible, then `joinClusterMetrics` once its
 *   app's registry exists) installs prom-client's worker-side responder and points it at the
 *   app's own registry with `AggregatorRegistry.setRegistries` (prom-client would otherwise
 *   report its global registry, which Trowel does not use). Until the app has booted, the
 *   worker answers with nothing rather than making the whole scrape wait for it.
 */
import cluster from 'node:cluster'
import { randomUUID } from 'node:crypto'
import { AggregatorRegistry, Registry } from 'prom-client'

const REQUEST = 'trowel:metrics:request'
const RESPONSE = 'trowel:metrics:response'
/** A worker's wait for the primary: prom-client gives up on a silent worker after 5 s. */
export const CLUSTER_SCRAPE_TIMEOUT_MS = 7000

interface ScrapeRequest {
  type: typeof REQUEST
  id: string
}

interface ScrapeResponse {
  type: typeof RESPONSE
  id: string
  text?: string
  error?: string
}

export interface ClusterScrape {
  contentType: string
  text: string
}

let primaryReady = false
let workerReady = false

/** In the primary process: answers workers' scrape requests with every worker's metrics, summed. */
export function serveClusterMetrics(): void {
  if (primaryReady || !cluster.isPrimary) return
  primaryReady = true
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: Partial<ScrapeRequest> | null) => {
    if (message?.type !== REQUEST || typeof message.id !== 'string') return
    const id = message.id
    const reply = (answer: Omit<ScrapeResponse, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id, ...answer } satisfies ScrapeResponse)
    }
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    )
  })
}

/** In a worker: answers the primary's collection requests (with nothing until `joinClusterMetrics`). */
export function answerClusterScrapes(): void {
  if (workerReady || !cluster.isWorker) return
  workerReady = true
  AggregatorRegistry.setRegistries([new Registry()])
  // The constructor installs prom-client's worker-side listener (once per process).
  new AggregatorRegistry()
}

/**
 * In a worker: lets the primary collect `registry`, and returns the function `/metrics` calls to
 * get the whole cluster's metrics from the primary.
 */
export function joinClusterMetrics(registry: Registry): () => Promise<ClusterScrape> {
  answerClusterScrapes()
  AggregatorRegistry.setRegistries([registry])
  const pending = new Map<string, (answer: ScrapeResponse) => void>()
  process.on('message', (message: Partial<ScrapeResponse> | null) => {
    if (message?.type === RESPONSE && typeof message.id === 'string') pending.get(message.id)?.(message as ScrapeResponse)
  })
  return () =>
    new Promise<ClusterScrape>((resolve, reject) => {
      if (!process.send || !process.connected) return reject(new Error('This worker has lost its primary process.'))
      const id = randomUUID()
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new Error(`The primary process did not answer within ${CLUSTER_SCRAPE_TIMEOUT_MS} ms.`))
      }, CLUSTER_SCRAPE_TIMEOUT_MS)
      pending.set(id, (answer) => {
        clearTimeout(timer)
        pending.delete(id)
        if (answer.error !== undefined || typeof answer.text !== 'string') reject(new Error(answer.error ?? 'The primary process sent no metrics.'))
        else resolve({ contentType: registry.contentType, text: answer.text })
      })
      process.send({ type: REQUEST, id } satisfies ScrapeRequest)
    })
}
