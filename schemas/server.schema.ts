/** `config/server.yaml`: the deployment's server settings. */
import type { FromSchema } from 'json-schema-to-ts'
import { retrievalSettingsSchema } from './retrieval.schema.js'

export const serverFileSchema = {
  $id: 'sluice:server',
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', default: '127.0.0.1', description: 'Address to listen on (HOST overrides).' },
    port: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      default: 8080,
      description: 'Port to listen on (PORT overrides).',
    },
    header_prefix: {
      type: 'string',
      pattern: '^[a-z0-9-]+-$',
      default: 'x-gateway-',
      description: "Prefix of the gateway's own response headers.",
    },
    body_limit_bytes: { type: 'integer', minimum: 1, default: 67108864, description: 'Largest request body (64 MiB).' },
    pipelines: {
      type: 'array',
      items: { type: 'string' },
      default: ['gateway.yaml'],
      description: 'Pipeline files, relative to the pipelines folder.',
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        request_timeout_ms: {
          type: 'integer',
          minimum: 1,
          default: 3600000,
          description: 'Total time of one request, queue wait included (60 minutes).',
        },
        queue_timeout_ms: {
          type: 'integer',
          minimum: 1,
          default: 300000,
          description: 'Longest wait for model capacity (5 minutes).',
        },
        headers_timeout_ms: {
          type: 'integer',
          minimum: 1000,
          default: 30000,
          description:
            'Longest time a client may take to send its request headers; then the connection is closed (408).',
        },
        body_timeout_ms: {
          type: 'integer',
          minimum: 1000,
          default: 300000,
          description:
            'Longest time a client may take to send a whole request, headers and body (5 minutes: 64 MiB at about 220 KB/s); then 408.',
        },
        json_max_depth: {
          type: 'integer',
          minimum: 8,
          maximum: 1000,
          default: 128,
          description:
            'Deepest nesting of arrays and objects a JSON body may have; deeper bodies get 400 before they are parsed.',
        },
      },
    },
    websocket: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The WebSocket transport (routes with `ws:`). Read at start.',
      properties: {
        max_payload_bytes: {
          type: 'integer',
          minimum: 1024,
          default: 16777216,
          description:
            'Largest message a client may send (16 MiB: a realtime request carries base64 audio); a larger one closes the socket with 1009.',
        },
        ping_interval_ms: {
          type: 'integer',
          minimum: 50,
          default: 30000,
          description:
            'How often the server pings each socket; a socket that has not answered the previous ping by then is terminated (a dead peer).',
        },
        max_in_flight: {
          type: 'integer',
          minimum: 1,
          default: 16,
          description: 'Requests one socket may have running at once; one more closes the socket with 1008.',
        },
        high_water_bytes: {
          type: 'integer',
          minimum: 1024,
          default: 1048576,
          description:
            'Past this many bytes queued for a slow reader, streams of the socket stop reading their source until the socket drains.',
        },
        max_buffered_bytes: {
          type: 'integer',
          minimum: 1024,
          default: 16777216,
          description: 'Past this many bytes queued for a reader, the socket is closed with 1008 (a reader too slow).',
        },
        drain_timeout_ms: {
          type: 'integer',
          minimum: 100,
          default: 60000,
          description:
            'Longest a stream waits for a slow reader to drain the socket; then the socket is closed with 1008.',
        },
      },
    },
    shutdown_grace_ms: {
      type: 'integer',
      minimum: 0,
      default: 10000,
      description: 'How long in-flight requests may run on after a shutdown signal.',
    },
    simulator: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: {
          type: 'boolean',
          default: true,
          description:
            'Start the model-server simulator (backends with url `embedded`) in its own worker thread of the gateway process, on a loopback port.',
        },
        config: {
          type: 'string',
          default: 'simulator.yaml',
          description: 'Simulator settings file, relative to the config folder.',
        },
        heap_mb: {
          type: 'integer',
          minimum: 64,
          default: 1024,
          description:
            "The simulator thread's heap (old generation), in MB. A thread that fills it dies and is started again on the same port; the requests it was serving fail as a crashed model server's do.",
        },
      },
    },
    embedder: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The in-process embedder (backends with url `embedded-embedder`).',
      properties: {
        deadline_ms: {
          type: 'integer',
          minimum: 100,
          default: 60000,
          description:
            'Longest one embeddings or tokenize job may take in its worker thread (a 2,048-text batch takes about 30 s on one core). Past it the request gets 504, the thread is terminated and started again, and the jobs behind it go on.',
        },
        threads: {
          type: 'integer',
          minimum: 0,
          maximum: 64,
          default: 0,
          description:
            'Worker threads running the model, each with its own copy (about 100 MB) started on its first job; a batch is shared among them. 0 = one per CPU (os.availableParallelism()), at most 4.',
        },
        idle_s: {
          type: 'integer',
          minimum: 0,
          default: 60,
          description:
            'A model thread past the first ends after this many seconds without a job, the first after ten times as long, and its model (about 90 MB) with it; the next job loads it again (about half a second). 0 = threads stay loaded.',
        },
      },
    },
    watch: {
      type: 'boolean',
      default: true,
      description: 'Reload pipelines and config when their files change (SIGHUP always reloads).',
    },
    stores: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'Where shared state lives. Read at start only (a reload keeps the stores it has). Unset URLs mean the embedded defaults: SQLite in the data folder, state in process memory.',
      properties: {
        postgres_url: {
          type: 'string',
          pattern: '^postgres(ql)?://',
          description:
            'PostgreSQL for usage records and keys made through the admin API, instead of SQLite (SLUICE_POSTGRES_URL overrides).',
        },
        postgres_schema: {
          type: 'string',
          pattern: '^[a-z_][a-z0-9_]{0,62}$',
          default: 'public',
          description: 'Schema the PostgreSQL tables live in; made when missing.',
        },
        redis_url: {
          type: 'string',
          pattern: '^rediss?://',
          description:
            'Redis for budgets, per-minute token windows and the fair queue, shared by every replica (SLUICE_REDIS_URL overrides).',
        },
        redis_prefix: {
          type: 'string',
          pattern: '^[A-Za-z0-9:_.-]{1,64}$',
          default: 'sluice:',
          description: 'Prefix of every Redis key Sluice writes.',
        },
        records_retention_days: {
          type: 'integer',
          minimum: 1,
          default: 180,
          description: 'Usage records older than this are purged (hourly).',
        },
        records_flush_ms: {
          type: 'integer',
          minimum: 10,
          default: 1000,
          description: 'How often buffered usage records are written, in one batch.',
        },
        records_batch: {
          type: 'integer',
          minimum: 1,
          maximum: 5000,
          default: 500,
          description: 'A buffer this full is written at once, without waiting for the timer.',
        },
        lease_ms: {
          type: 'integer',
          minimum: 200,
          default: 10000,
          description:
            'Scale-out: how long a fair-queue slot, a waiter or a budget reservation outlives the last heartbeat of its replica (heartbeats come every tenth of it). A killed replica gives all of them back within this time.',
        },
        reconcile_every_ms: {
          type: 'integer',
          minimum: 0,
          default: 300000,
          description:
            'Scale-out: how often the term budgets are reconciled with the usage records (see `npm run reconcile`). 0 = never.',
        },
        records_journal: {
          type: 'boolean',
          default: true,
          description:
            'Embedded default (SQLite): append each usage record to a journal in the data folder before it waits for its batch, so that a crash loses none.',
        },
        responses_retention_days: {
          type: 'integer',
          minimum: 1,
          default: 30,
          description:
            "Responses API responses kept with `store: true` (the client's own text, for previous_response_id and GET /v1/responses/:id) are purged this many days after they were made (hourly).",
        },
        responses_per_key: {
          type: 'integer',
          minimum: 1,
          default: 10000,
          description: 'Most stored responses a key keeps; its oldest beyond this are purged (hourly).',
        },
        keys_refresh_ms: {
          type: 'integer',
          minimum: 100,
          default: 2000,
          description:
            'How often the key cache checks the store for changes made by other replicas (changes made here apply at once).',
        },
      },
    },
    access_log: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'One JSON line per client request (request and trace ids, route, key id, model, status, tokens, timings; never prompt text or secrets), written in batches off the request path. Read at start.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'false: no access log.' },
        to: {
          type: 'string',
          minLength: 1,
          default: 'stdout',
          description: '`stdout`, `stderr`, or a file (relative to the data folder) that lines are appended to.',
        },
        flush_ms: {
          type: 'integer',
          minimum: 10,
          maximum: 60000,
          default: 250,
          description: 'How often buffered lines are written, in one write.',
        },
        max_buffered_bytes: {
          type: 'integer',
          minimum: 65536,
          default: 8388608,
          description:
            'Past this many bytes buffered or waiting for the destination, lines are dropped and counted (sluice_access_log_dropped_total) rather than held.',
        },
      },
    },
    trusted_proxies: {
      type: 'array',
      items: { type: 'string', pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$' },
      default: [],
      description:
        "Addresses or CIDR ranges of the reverse proxies in front of the gateway, e.g. ['10.0.0.0/8', '::1']. A request from one of them is logged with the first address of X-Forwarded-For, read from the right, that is not one of them; none set: the socket's address, and X-Forwarded-For is ignored. Read at start.",
    },
    metrics: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'Who may read GET /metrics (the `metrics` plugin). Nothing set: open, as a scrape target on a private network usually is.',
      properties: {
        token_hash: {
          type: 'string',
          pattern: '^sha256:[0-9a-f]{64}$',
          description:
            'sha256 of a bearer token for Prometheus (SLUICE_METRICS_TOKEN, the secret itself, overrides). Set: /metrics needs this token or the admin key.',
        },
        require_admin_key: {
          type: 'boolean',
          default: false,
          description: 'true: /metrics needs the admin key (or the metrics token when one is set).',
        },
      },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The admin API (pipelines/admin.yaml).',
      properties: {
        key_hash: {
          type: 'string',
          pattern: '^sha256:[0-9a-f]{64}$',
          description:
            'sha256 of the admin key, hex (SLUICE_ADMIN_KEY, the secret itself, overrides). Neither set: the admin API answers 403, unless `generate_key`.',
        },
        generate_key: {
          type: 'boolean',
          default: false,
          description:
            'Neither `key_hash` nor SLUICE_ADMIN_KEY set: make an admin key at first start, print it once and keep only its hash (`admin-key.json` in the data folder), as the demo key is. The embedded default turns it on.',
        },
      },
    },
    knowledge: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'The knowledge base (pipelines/knowledge.yaml). Its store is SQLite `knowledge.db` in the data folder, or the PostgreSQL of `stores.postgres_url`.',
      properties: {
        embedding_model: {
          type: 'string',
          minLength: 1,
          default: 'use-lite',
          description:
            'Embedding model of a collection created without one (a model of the catalog, reached through the `embeddings` route).',
        },
        embedding_key: {
          type: 'string',
          minLength: 1,
          default: 'demo',
          description:
            'Id of the key whose group, budget and usage records carry the embedding calls of ingestion and of the search route.',
        },
        chunking: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'How documents are cut into chunks (tokens by cl100k_base).',
          properties: {
            max_tokens: { type: 'integer', minimum: 16, default: 512, description: 'Largest chunk, in tokens.' },
            overlap_tokens: {
              type: 'integer',
              minimum: 0,
              default: 64,
              description:
                'Tokens repeated from one chunk at the start of the next in the same section; at most half of max_tokens.',
            },
          },
        },
        vector_windows: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description:
            'Windows for the vector leg: each chunk is also embedded as windows of whole sentences, and a chunk scores by its best window. Costs about 4 times the embedding time at ingestion (96 tokens, 512-token chunks); the vector leg searches about 4 times as many vectors.',
          properties: {
            max_tokens: {
              type: 'integer',
              minimum: 0,
              default: 96,
              description:
                'Largest window, in tokens; 0 = off (one vector per chunk). Applies to documents ingested from then on.',
            },
          },
        },
        retrieval: retrievalSettingsSchema,
        pdf: {
          type: 'object',
          additionalProperties: false,
          description:
            'Older names of two reader limits, still read: `max_pages` and `timeout_ms` here count when `readers` does not set them.',
          properties: {
            max_pages: { type: 'integer', minimum: 1, description: 'See readers.max_pages.' },
            timeout_ms: { type: 'integer', minimum: 100, description: 'See readers.timeout_ms.' },
          },
        },
        readers: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description:
            'The document readers of knowledge ingestion and chat uploads (PDF, HTML, Markdown, text). They run in child processes, off the event loop (their memory goes back to the system when they end); a document over a limit is refused with 413 (a size) or 422 (nesting, time, memory) naming the limit and the document, and the other documents go on.',
          properties: {
            max_depth: {
              type: 'integer',
              minimum: 1,
              maximum: 10000,
              default: 128,
              description: 'Nesting of HTML elements and of Markdown block quotes and lists; deeper → 422.',
            },
            max_text_bytes: {
              type: 'integer',
              minimum: 1024,
              default: 8388608,
              description:
                'UTF-8 bytes of text one document may yield (8 MiB); a text or Markdown source is its text. Larger → 413.',
            },
            max_pages: {
              type: 'integer',
              minimum: 1,
              description:
                'Pages a PDF may have, checked before any page is read (default 2000, or pdf.max_pages); more → 413.',
            },
            max_inflated_bytes: {
              type: 'integer',
              minimum: 1024,
              default: 134217728,
              description:
                "Bytes a PDF's compressed streams (images aside) may inflate to in total (128 MiB), measured before PDF.js decodes them; more → 413.",
            },
            timeout_ms: {
              type: 'integer',
              minimum: 100,
              description:
                'Wall-clock milliseconds one document may take to read (default 30000, or pdf.timeout_ms); past it its reader process is killed and replaced → 422.',
            },
            memory_mb: {
              type: 'integer',
              minimum: 32,
              default: 512,
              description:
                "Heap of one reader process in MiB (V8's --max-old-space-size); a document that needs more ends its process → 422.",
            },
            workers: {
              type: 'integer',
              minimum: 1,
              maximum: 64,
              default: 2,
              description:
                'Reader processes at most (started at the first document, ended a minute after their last, or at once when a document left one over 200 MB); further documents wait their turn.',
            },
          },
        },
      },
    },
    web_search: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'The web search provider behind POST /v1/web_search and the web_search boon. `local` (the default) searches a knowledge-base collection and says so: nothing leaves the machine. `searxng` sends the query, and only the query, to a SearXNG-compatible JSON API.',
      if: { properties: { provider: { const: 'searxng' } }, required: ['provider'] },
      then: { required: ['url'] },
      properties: {
        provider: {
          type: 'string',
          enum: ['local', 'searxng'],
          default: 'local',
          description:
            '`local`: a knowledge-base collection (not the web); `searxng`: GET {url}/search?q=...&format=json.',
        },
        url: {
          type: 'string',
          pattern: '^https?://',
          description: 'Base URL of the SearXNG instance (required with provider searxng), e.g. http://127.0.0.1:8888.',
        },
        timeout_ms: {
          type: 'integer',
          minimum: 100,
          default: 10000,
          description: 'Longest wait for the provider; then 504.',
        },
        default_results: {
          type: 'integer',
          minimum: 1,
          default: 5,
          description: "Results returned when a request (or the model's tool call) does not say how many.",
        },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: 50,
          default: 10,
          description: 'The most results a request may ask for; more is 400 on the endpoint and capped for the boon.',
        },
        local: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'The collection the local provider searches (lexical search: no model call).',
          properties: {
            project: { type: 'string', minLength: 1, default: 'demo' },
            collection: { type: 'string', minLength: 1, default: 'sample' },
          },
        },
      },
    },
    query: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'The Query service (pipelines/query.yaml): the sample collection, how long conversation history and chat uploads are kept, and how big uploads may be. Stores sit beside the records (SQLite in the data folder, or the PostgreSQL of `stores.postgres_url`).',
      properties: {
        routes: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description:
            'The gateway routes the Query service calls in-process, by id (pipelines/gateway.yaml), so that every model call it makes is queued, budgeted and recorded like a client request.',
          properties: {
            chat: {
              type: 'string',
              minLength: 1,
              default: 'chat-internal',
              description: 'Query variants (`advanced_rag`) and other helper chats.',
            },
            embeddings: {
              type: 'string',
              minLength: 1,
              default: 'embeddings',
              description: 'Embeddings of documents and questions.',
            },
            rerank: {
              type: 'string',
              minLength: 1,
              default: 'rerank',
              description: 'Reranking of retrieved chunks (`search_params.rerank`).',
            },
          },
        },
        sample_collection: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description:
            'A small collection ingested from files of the config folder after the first start of `npm start` (in the background; skipped when the collection exists), so that a first query with enable_search returns sources.',
          properties: {
            enabled: { type: 'boolean', default: true, description: 'false: nothing is ingested.' },
            project: {
              type: 'string',
              minLength: 1,
              default: 'demo',
              description: 'The project that owns it (its key carries the embedding calls).',
            },
            collection: { type: 'string', minLength: 1, default: 'sample', description: 'The collection made.' },
            folder: {
              type: 'string',
              minLength: 1,
              default: 'sample',
              description: 'Folder of .md and .txt files, relative to the config folder.',
            },
          },
        },
        history_retention_days: {
          type: 'integer',
          minimum: 1,
          default: 30,
          description: "Conversation turns (the client's own text) are purged this many days after they were made.",
        },
        history_max_turns: {
          type: 'integer',
          minimum: 2,
          default: 200,
          description: 'Turns kept per project and session; the oldest beyond this are dropped as new ones are added.',
        },
        purge_every_minutes: {
          type: 'integer',
          minimum: 1,
          default: 10,
          description:
            'How often expired chat uploads and history past its retention are purged (expired uploads are never returned in between).',
        },
        uploads: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description:
            'Chat uploads (POST /query/v1/chat_upload): files kept per project and session for in-context use.',
          properties: {
            max_files: {
              type: 'integer',
              minimum: 1,
              default: 20,
              description: 'Files in one upload at most; more → 400.',
            },
            max_file_bytes: {
              type: 'integer',
              minimum: 1,
              default: 20971520,
              description: 'Bytes of one file at most (20 MiB); larger → 413.',
            },
            max_total_bytes: {
              type: 'integer',
              minimum: 1,
              default: 52428800,
              description: 'Bytes of all files of one upload at most (50 MiB); more → 413.',
            },
            ttl_minutes: {
              type: 'integer',
              minimum: 1,
              default: 60,
              description: 'Minutes an upload is kept; after that its files are not found (404) and are purged.',
            },
          },
        },
      },
    },
  },
} as const

export type ServerFile = FromSchema<typeof serverFileSchema>

/** Overrides of server.yaml (tests, the CLI): any setting, and any of the limits (or the embedder's settings) alone. */
export type ServerOverrides = Partial<Omit<ServerFile, 'limits' | 'embedder'>> & {
  limits?: Partial<NonNullable<ServerFile['limits']>>
  embedder?: Partial<NonNullable<ServerFile['embedder']>>
}
