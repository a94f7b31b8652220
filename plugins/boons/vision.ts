/**
 * The vision boon: a helper model describes each image in text, and the description takes
 * the image's place in the request, so a text-only model can answer about it.
 */
import { GatewayError, type Exchange, type Kernel } from '../../kernel/contract/index.js'

interface Part {
  type?: string
  text?: string
  image_url?: { url: string; detail?: string }
}

interface Options {
  route: string
  prompt: string
  maxTokens: number
  helper: string
}

/** Replaces every image part of the messages with its description; returns how many. */
export async function describeImages(
  kernel: Kernel,
  ex: Exchange,
  messages: { content?: unknown }[],
  options: Options,
): Promise<number> {
  const jobs: { parts: Part[]; index: number; part: Part }[] = []
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue
    const parts = m.content as Part[]
    parts.forEach((part, index) => {
      if (part?.type === 'image_url' && part.image_url?.url) jobs.push({ parts, index, part })
    })
  }
  const descriptions = await Promise.all(jobs.map((job) => describeOne(kernel, ex, job.part, options)))
  jobs.forEach((job, i) => {
    job.parts[job.index] = {
      type: 'text',
      text: `[Image ${i + 1}, as described by ${options.helper}: ${descriptions[i]}]`,
    }
  })
  return jobs.length
}

async function describeOne(kernel: Kernel, ex: Exchange, part: Part, options: Options): Promise<string> {
  const { reply } = await kernel.call(
    options.route,
    {
      model: options.helper,
      reasoning_effort: 'none',
      max_tokens: options.maxTokens,
      temperature: 0,
      messages: [{ role: 'user', content: [part, { type: 'text', text: options.prompt }] }],
    },
    { principal: ex.principal, signal: ex.signal, parentId: ex.id },
  )
  if (reply.kind !== 'json')
    throw new GatewayError(502, 'upstream request failed', { cause: new Error(`vision helper replied ${reply.kind}`) })
  const content = (reply.body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content
  return typeof content === 'string' && content.trim() !== '' ? content.trim() : '(no description)'
}
