/**
 * The boons that act through a tool the gateway runs itself: `web_search` (a search through the
 * deployment's provider) and `image_generation` (an image from the boon's helper image model,
 * appended to the reply as a Markdown data URL). Each is a function tool offered to the model
 * beside the client's own, and a `run` that turns one call into the tool message the model
 * reads next (and, for an image, the Markdown appended to the answer). Every model call goes
 * through a route with kernel.call under the caller's key: queued, budgeted and recorded.
 */
import { toGatewayError, type Exchange, type Kernel } from '../../kernel/contract/index.js'
import { boonActs, type BoonName } from '../../domains/gateway/boons.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { BoonsConfig } from './schema.js'

export interface FunctionTool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

export interface ToolOutcome {
  /** What the model reads as the tool message. */
  toolMessage: string
  /** Markdown appended to the final answer (the image). */
  appendix?: string
}

export interface ToolBoon {
  readonly boon: BoonName
  readonly tool: FunctionTool
  run(args: Record<string, unknown>, ex: Exchange): Promise<ToolOutcome>
}

const callOptions = (ex: Exchange) => ({ principal: ex.principal, signal: ex.signal, parentId: ex.id })

/** A tool's failure goes to the model as its result (it may answer without it), never the whole request. */
const failed = (what: string, err: unknown): ToolOutcome => {
  if ((err as Error)?.name === 'AbortError') throw err
  const e = toGatewayError(err)
  return { toolMessage: JSON.stringify({ error: `${what} failed (${e.status}): ${e.message}` }) }
}

function webSearch(kernel: Kernel, config: BoonsConfig): ToolBoon {
  return {
    boon: 'web_search',
    tool: {
      type: 'function',
      function: {
        name: 'web_search',
        description:
          'Search for current information. Returns results with title, url and content. Cite the urls you use.',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to search for, as words a search engine understands.' },
            count: { type: 'integer', minimum: 1, maximum: 10, description: 'How many results (default 5).' },
          },
          required: ['query'],
        },
      },
    },
    async run(args, ex) {
      const query = typeof args.query === 'string' ? args.query.trim() : ''
      if (query === '') return { toolMessage: JSON.stringify({ error: 'web_search needs a non-empty query' }) }
      const count = Number.isInteger(args.count) && (args.count as number) >= 1 ? (args.count as number) : undefined
      try {
        // The endpoint's own limit applies; a count over it is capped, not an error for the model.
        const max = kernel.config.server.web_search?.max_results ?? 10
        const { reply } = await kernel.call(
          config.search_route,
          { query, ...(count ? { max_results: Math.min(count, max) } : {}) },
          callOptions(ex),
        )
        const found = (reply.kind === 'json' ? reply.body : {}) as {
          provider_description?: string
          results?: { title: string; url: string; content: string }[]
        }
        const results = (found.results ?? []).map(({ title, url, content }) => ({ title, url, content }))
        return { toolMessage: JSON.stringify({ source: found.provider_description, results }) }
      } catch (err) {
        return failed('the search', err)
      }
    },
  }
}

function imageGeneration(kernel: Kernel, config: BoonsConfig, helper: string): ToolBoon {
  return {
    boon: 'image_generation',
    tool: {
      type: 'function',
      function: {
        name: 'generate_image',
        description:
          'Draw an image from a description. The image is shown to the user after your answer; do not repeat it.',
        parameters: {
          type: 'object',
          properties: { prompt: { type: 'string', description: 'A description of the image to draw.' } },
          required: ['prompt'],
        },
      },
    },
    async run(args, ex) {
      const prompt = typeof args.prompt === 'string' ? args.prompt.trim() : ''
      if (prompt === '') return { toolMessage: JSON.stringify({ error: 'generate_image needs a non-empty prompt' }) }
      try {
        const { reply } = await kernel.call(
          config.image_route,
          { model: helper, prompt, n: 1, size: config.image_size, response_format: 'b64_json' },
          callOptions(ex),
        )
        const body = (reply.kind === 'json' ? reply.body : {}) as {
          data?: { b64_json?: string }[]
          output_format?: string
        }
        const images = (body.data ?? []).filter((d) => typeof d.b64_json === 'string')
        const format = /^(png|jpeg|webp)$/.test(body.output_format ?? '') ? body.output_format : 'png'
        const alt = markdownAlt(prompt)
        return {
          toolMessage: JSON.stringify({
            images: images.length,
            note: 'The image is shown to the user below your answer; do not include it yourself.',
          }),
          appendix: images.map((d) => `![${alt}](data:image/${format};base64,${d.b64_json})`).join('\n\n'),
        }
      } catch (err) {
        return failed('the image generation', err)
      }
    },
  }
}

/** The prompt as Markdown alt text: one line, no brackets that would end it, bounded. */
function markdownAlt(prompt: string): string {
  return Array.from(prompt.replace(/[\r\n]+/g, ' ').replace(/[[\]\\]/g, ''))
    .slice(0, 120)
    .join('')
}

/** The tool boons that act for this model. */
export function toolBoonsFor(kernel: Kernel, config: BoonsConfig, model: ModelConfig): ToolBoon[] {
  const out: ToolBoon[] = []
  if (boonActs(model, 'web_search')) out.push(webSearch(kernel, config))
  const helper = model.boons?.image_generation?.helper_model
  if (helper && boonActs(model, 'image_generation')) out.push(imageGeneration(kernel, config, helper))
  return out
}
