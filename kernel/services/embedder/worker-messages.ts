/** What the embedder and its worker thread say to each other. */
export interface WorkerJob {
  id: number
  kind: 'embed' | 'tokenize'
  texts: string[]
  /** For `embed`: no text is embedded when one has more tokens than this (the reply's vectors are empty). */
  maxTokens?: number
  /** Tests only (EmbedderWorker.hangNextJob): the thread spins instead of answering. */
  hang?: boolean
}

/** Sent when a job begins (the model loaded): its deadline runs from here. */
export type WorkerStarted = { id: number; started: true }

export type WorkerReply =
  | { id: number; ok: true; vectors: Float32Array[]; tokens: number[][] }
  | { id: number; ok: false; error: string }
