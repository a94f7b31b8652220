/** `config/server.yaml`: the deployment's server settings. */
import type { FromSchema } from 'json-schema-to-ts'

export const serverFileSchema = {
  $id: 'sluice:server',
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', default: '127.0.0.1', description: 'Address to listen on (HOST overrides).' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080, description: 'Port to listen on (PORT overrides).' },
    header_prefix: { type: 'string', pattern: '^[a-z0-9-]+-$', default: 'x-gateway-', description: "Prefix of the gateway's own response headers." },
    body_limit_bytes: { type: 'integer', minimum: 1, default: 67108864, description: 'Largest request body (64 MiB).' },
    pipelines: { type: 'array', items: { type: 'string' }, default: ['gateway.yaml'], description: 'Pipeline files, relative to the pipelines folder.' },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        request_timeout_ms: { type: 'integer', minimum: 1, default: 3600000, description: 'Total time of one request, queue wait included (60 minutes).' },
        queue_timeout_ms: { type: 'integer', minimum: 1, default: 300000, description: 'Longest wait for model capacity (5 minutes).' },
      },
    },
    shutdown_grace_ms: { type: 'integer', minimum: 0, default: 10000, description: 'How long in-flight requests may run on after a shutdown signal.' },
    simulator: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Start the model-server simulator in-process (backends with url `embedded`).' },
        config: { type: 'string', default: 'simulator.yaml', description: 'Simulator settings file, relative to the config folder.' },
      },
    },
    watch: { type: 'boolean', default: true, description: 'Reload pipelines and config when their files change (SIGHUP always reloads).' },
  },
} as const

export type ServerFile = FromSchema<typeof serverFileSchema>
