/**
 * POST /v1/images/generations: OpenAI's images API, answered with real PNG files whose pixels
 * depend on the prompt (image-pattern.ts), base64 in `b64_json`. Only `b64_json` is served, as
 * gpt-image-1 does: `response_format: url` gets a 400 (a simulator hosts no files). Usage is
 * reported in gpt-image-1's shape, `{input_tokens, output_tokens, total_tokens,
 * input_tokens_details}`: the prompt's text tokens in, and per image its token count at
 * gpt-image-1's medium quality (1,056 for 1024×1024), scaled by area.
 *
 * Time: a diffusion model denoises in steps; each image takes `image.steps` steps at the
 * inter-token latency, after the time to first token, in a running slot like any request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { optionalInteger, optionalString, requiredString } from './body-fields.js'
import { modelNameOf, requireJsonObject } from './chat.js'
import { planFailure } from './failures.js'
import { runGeneration } from './generation-run.js'
import { unixSeconds } from './ids.js'
import { imagePixels } from './image-pattern.js'
import { encodePng } from './png.js'
import { textPromptTokens } from './prompt.js'
import { requireKind, type SimContext } from './sim-context.js'

/** gpt-image-1's output tokens of one 1024×1024 image at medium quality. */
const TOKENS_PER_MEGAPIXEL = 1056

export function imageTokens(width: number, height: number): number {
  return Math.ceil((TOKENS_PER_MEGAPIXEL * width * height) / (1024 * 1024))
}

function quoted(values: readonly string[]): string {
  return `[${values.map((v) => `'${v}'`).join(', ')}]`
}

export function handleImageGenerations(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelNameOf(json))
  if (failure.error) throw failure.error
  const engine = sim.engine(requiredString(json, 'model'))
  requireKind(engine, 'image', 'Images')
  const settings = engine.model.image
  const prompt = requiredString(json, 'prompt')
  if (prompt.trim() === '') throw new SimError(400, 'prompt: String should have at least 1 character', 'prompt')
  const n = optionalInteger(json, 'n') ?? 1
  // OpenAI's jsonschema-style wording: "5 is greater than the maximum of 4 - 'n'".
  if (n < 1) throw new SimError(400, `${n} is less than the minimum of 1 - 'n'`, 'n')
  if (n > settings.max_images)
    throw new SimError(400, `${n} is greater than the maximum of ${settings.max_images} - 'n'`, 'n')
  const asked = optionalString(json, 'size') ?? 'auto'
  const size = asked === 'auto' ? settings.sizes[0]! : asked
  if (!settings.sizes.includes(size))
    throw new SimError(400, `'${asked}' is not one of ${quoted(['auto', ...settings.sizes])} - 'size'`, 'size')
  const format = optionalString(json, 'response_format') ?? 'b64_json'
  if (format === 'url')
    throw new SimError(
      400,
      "response_format 'url' is not supported: this server returns images as b64_json only",
      'response_format',
    )
  if (format !== 'b64_json')
    throw new SimError(400, `'${format}' is not one of ['b64_json', 'url'] - 'response_format'`, 'response_format')
  const outputFormat = optionalString(json, 'output_format') ?? 'png'
  if (outputFormat !== 'png')
    throw new SimError(
      400,
      `output_format '${outputFormat}' is not supported: this server makes png only`,
      'output_format',
    )
  const [width, height] = size.split('x').map(Number) as [number, number]

  const promptIds = textPromptTokens(prompt)
  const outputTokens = n * imageTokens(width, height)
  const reply = () => ({
    created: unixSeconds(),
    data: Array.from({ length: n }, (_, i) => ({
      b64_json: encodePng(width, height, imagePixels(prompt, i, width, height, sim.config.seed)).toString('base64'),
    })),
    output_format: 'png',
    quality: 'medium',
    size,
    usage: {
      input_tokens: promptIds.length,
      output_tokens: outputTokens,
      total_tokens: promptIds.length + outputTokens,
      input_tokens_details: { text_tokens: promptIds.length, image_tokens: 0 },
    },
  })
  const job = {
    engine,
    prompts: [promptIds],
    completionTokens: outputTokens,
    // Denoising steps, paid at the inter-token latency: the images of a request are made one after another.
    tokenSteps: n * settings.steps,
    finishedReason: 'stop' as const,
    stream: false,
    json: reply,
    script: () => ({ opening: [], steps: [], closing: [] }),
  }
  return runGeneration(job, sim.runEnv(req, res, failure, arrival))
}
