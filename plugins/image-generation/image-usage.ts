/**
 * Usage of an image generation. gpt-image-1 reports tokens: the prompt's text tokens in, and
 * per image a token count that grows with its area (1,056 for a 1024×1024 image at medium
 * quality). Models are priced per output token, so an image's price is its tokens' price
 * (models.yaml `prices.completion`). A server that reports nothing (dall-e-style) is counted
 * by the same rule: the prompt at four bytes a token, each image by its size.
 */
import type { Demand, ReportedUsage } from '../../kernel/contract/index.js'

const TOKENS_PER_MEGAPIXEL = 1056
/** What `auto` or an unknown size is reserved as: the largest common size, 1536×1024. */
const LARGEST_PIXELS = 1536 * 1024

function pixelsOf(size: string | undefined): number | undefined {
  const m = /^(\d+)x(\d+)$/.exec(size ?? '')
  return m ? Number(m[1]) * Number(m[2]) : undefined
}

export function imageTokens(size: string | undefined): number {
  return Math.ceil((TOKENS_PER_MEGAPIXEL * (pixelsOf(size) ?? LARGEST_PIXELS)) / (1024 * 1024))
}

const promptTokens = (prompt: string) => 1 + Math.ceil(Buffer.byteLength(prompt, 'utf8') / 4)

export function imageDemand(prompt: string, n: number, size: string | undefined): Demand {
  return { inputTokens: promptTokens(prompt), outputTokens: n * imageTokens(size), choices: 1, adjustable: false }
}

/** The server's `usage` (gpt-image-1's shape), or the gateway's count of what it sent back. */
export function imageReport(sent: unknown, prompt: string, images: number, size: string | undefined): ReportedUsage {
  const u = (sent as { usage?: { input_tokens?: unknown; output_tokens?: unknown } } | null)?.usage
  if (u && typeof u.input_tokens === 'number' && typeof u.output_tokens === 'number')
    return { inputTokens: u.input_tokens, outputTokens: u.output_tokens }
  return { inputTokens: promptTokens(prompt), outputTokens: images * imageTokens(size) }
}
