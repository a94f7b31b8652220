/**
 * Whether a thinking model thinks, and for how long. The controls are the ones real servers
 * read: Qwen3's `chat_template_kwargs.enable_thinking` wins, then `reasoning_effort` (newer vLLM
 * sets enable_thinking = effort != "none"), then the model's default.
 */
import type { ThinkingControls } from './chat-request.js'
import type { SimModelConfig } from './schema.js'

/** Reasoning tokens per effort level when the request gives no `thinking_token_budget`. */
const tokensByEffort: Record<string, number> = {
  minimal: 8,
  low: 16,
  medium: 48,
  high: 128,
  xhigh: 256,
  max: 512,
}
const defaultReasoningTokens = 48

export function thinkingEnabled(model: SimModelConfig, controls: ThinkingControls): boolean {
  if (model.reasoning !== 'thinking') return false
  if (controls.enableThinking !== undefined) return controls.enableThinking
  if (controls.reasoningEffort !== undefined) return controls.reasoningEffort !== 'none'
  return model.thinking_default
}

export function reasoningTokenCount(controls: ThinkingControls): number {
  if (controls.thinkingTokenBudget !== undefined) return controls.thinkingTokenBudget
  return tokensByEffort[controls.reasoningEffort ?? ''] ?? defaultReasoningTokens
}
