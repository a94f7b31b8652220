/**
 * What a request will cost the model, guessed when it starts. The fair queue charges this
 * guess at dispatch and corrects it to the real usage at the end; the guess must be unbiased,
 * not an upper bound: a group whose running requests are over-charged looks better served than
 * it is, and a group lifted to its counter (VTC's lift) starts behind for good. So the guess
 * learns, per backend pool, how real prompt tokens compare with the byte-based estimate and
 * how long replies run, as moving averages of what the model server reported. What it learned
 * is kept in the plugin's state, across reloads; the weights are the step's options of the day.
 */
export interface ServiceWeights {
  prompt: number
  completion: number
}

/** Weight of the newest observation in the moving averages. */
const ALPHA = 0.1

/** Weighted service of prompt and completion tokens. */
export function weighted(weights: ServiceWeights, promptTokens: number, completionTokens: number): number {
  return promptTokens * weights.prompt + completionTokens * weights.completion
}

export class ServiceEstimate {
  /** Real prompt tokens per estimated token (bytes-based estimates run about 3 to 4 times high). */
  private promptRatio = 0.3
  private completionMean = 0
  private seen = 0

  /** Prompt tokens likely behind a byte-based estimate. */
  guessPrompt(estimate: number): number {
    return estimate * this.promptRatio
  }

  /** Weighted service to charge at dispatch for a prompt estimated at `estimate` tokens. */
  charge(estimate: number, weights: ServiceWeights): number {
    return weighted(weights, this.guessPrompt(estimate), this.completionMean)
  }

  /** Learns from a reply's usage report. */
  learn(estimate: number, promptTokens: number, completionTokens: number): void {
    // Plain averages until a few replies are in, then moving averages that follow change.
    const a = Math.max(ALPHA, 1 / ++this.seen)
    if (estimate > 0) this.promptRatio += a * (promptTokens / estimate - this.promptRatio)
    this.completionMean += a * (completionTokens - this.completionMean)
  }

  /** What it has learned so far (metrics, tests). */
  learned(): { replies: number; promptRatio: number; completionMean: number } {
    return { replies: this.seen, promptRatio: this.promptRatio, completionMean: this.completionMean }
  }
}
