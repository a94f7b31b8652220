/**
 * The context-window checks of current vLLM (`vllm/renderers/params.py`): prompt plus requested
 * output must fit in max_model_len. Without max_tokens the output may use whatever is left.
 */
import { SimError } from './api-error.js'

function contextLengthError(promptTokens: number, requested: number, maxModelLen: number): SimError {
  return new SimError(
    400,
    `You passed ${promptTokens} input tokens and requested ${requested} output tokens. However, the model's context length is only ${maxModelLen} tokens, resulting in a maximum input length of ${maxModelLen - requested} tokens. Please reduce the length of the input prompt.`,
    'input_tokens',
  )
}

/** Returns how many output tokens a generating request may produce, or throws vLLM's 400. */
export function outputLimit(promptTokens: number, maxTokens: number | undefined, maxModelLen: number): number {
  if (maxTokens !== undefined && maxTokens > maxModelLen) {
    throw new SimError(
      400,
      `max_tokens=${maxTokens} cannot be greater than max_model_len=${maxModelLen}. Please request fewer output tokens.`,
      'max_tokens',
    )
  }
  const requested = maxTokens ?? 0
  // Without max_tokens at least one output token must still fit.
  if (promptTokens + requested > maxModelLen || promptTokens >= maxModelLen)
    throw contextLengthError(promptTokens, requested, maxModelLen)
  return maxTokens ?? maxModelLen - promptTokens
}

/** Pooling (embedding) requests produce nothing, so the whole window is for the input. */
export function checkPoolingInput(promptTokens: number, maxModelLen: number): void {
  if (promptTokens > maxModelLen) throw contextLengthError(promptTokens, 0, maxModelLen)
}
