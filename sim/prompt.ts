/**
 * Prompts as token ids, the way a chat template lays them out: tools first (templates put them
 * in the system turn), then each message framed by start/role/end tokens, then the generation
 * prompt. The ids feed usage counts, /tokenize and the prefix cache, so the same leading
 * messages always produce the same leading blocks.
 */
import { hashString } from './seeded-random.js'
import { appendImageTokens, encodeTextInto, roleTokenId, specialTokens } from './tokens.js'

export interface PromptMessage {
  role: string
  text: string
  imageUrls: readonly string[]
}

export function chatPromptTokens(
  messages: readonly PromptMessage[],
  toolsText: string,
  addGenerationPrompt = true,
): number[] {
  const ids: number[] = [specialTokens.bos]
  if (toolsText) appendTurn('system', toolsText, [], ids)
  for (const message of messages) appendTurn(message.role, message.text, message.imageUrls, ids)
  if (addGenerationPrompt) ids.push(specialTokens.imStart, roleTokenId('assistant'))
  return ids
}

function appendTurn(role: string, text: string, imageUrls: readonly string[], ids: number[]): void {
  ids.push(specialTokens.imStart, roleTokenId(role))
  for (const url of imageUrls) appendImageTokens(hashString(url), ids)
  encodeTextInto(text, ids)
  ids.push(specialTokens.imEnd)
}

/** A legacy completion prompt: text, or token ids passed through as they are. */
export function textPromptTokens(prompt: string | readonly number[], addSpecialTokens = true): number[] {
  if (typeof prompt !== 'string') return [...prompt]
  const ids: number[] = addSpecialTokens ? [specialTokens.bos] : []
  encodeTextInto(prompt, ids)
  return ids
}
