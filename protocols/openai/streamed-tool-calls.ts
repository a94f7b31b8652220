/**
 * Tool calls of a streamed chat completion, put together from their deltas: the first delta of
 * a call carries its id and name, later ones pieces of its arguments, all by the call's index.
 */

export interface StreamedToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** One `delta.tool_calls[]` entry as OpenAI-compatible servers stream it. */
export interface ToolCallDelta {
  index?: number
  id?: string
  function?: { name?: string; arguments?: string }
}

/** Adds a delta to the calls so far (`calls[index]`, made on its first delta). */
export function addToolCallDelta(calls: StreamedToolCall[], part: ToolCallDelta): void {
  const call = (calls[part.index ?? 0] ??= { id: '', type: 'function', function: { name: '', arguments: '' } })
  if (part.id) call.id = part.id
  if (part.function?.name) call.function.name += part.function.name
  if (part.function?.arguments) call.function.arguments += part.function.arguments
}
