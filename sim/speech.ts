/**
 * POST /v1/audio/speech: a speech server that makes real 24 kHz 16-bit mono audio. A streaming
 * model (Orpheus-like) sends audio as it is generated: the first chunk `first_audio_ms` after the
 * request got its slot, then chunks at `realtime_factor` times real time; a whole-file model
 * (Qwen3-TTS-like) sends the file when it is done. At most `max_running` requests of a model run
 * at once; the rest wait in line (the scheduler), as a real server's slots do.
 *
 * With both timings 0 and no fault the reply is written synchronously, like the chat fast path.
 */
import { writeOrWait } from './http-io.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { sleep } from './active-requests.js'
import { requireJsonObject, modelNameOf } from './chat.js'
import { requiredString } from './body-fields.js'
import { planFailure } from './failures.js'
import { headerMs } from './latency.js'
import type { ModelEngine, RunOutcome } from './model-engine.js'
import { textPromptTokens } from './prompt.js'
import { waitForSlot, type Admission } from './scheduler.js'
import { requireKind, type SimContext } from './sim-context.js'
import { espeakPcm } from './speech-espeak.js'
import { readSpeechRequest, type SpeechRequest } from './speech-request.js'
import { speechSampleRate, SyntheticSpeech } from './synthetic-voice.js'
import { wavHeader } from './wav.js'

/** Orpheus emits 7 audio tokens per 2048 samples (one SNAC window). */
const audioTokens = (samples: number) => Math.ceil((samples * 7) / 2048)

interface SpeechTiming {
  firstAudioMs: number
  realtimeFactor: number
  /** Chunks sent before the connection is destroyed (x-sim-cut-after). */
  cutAfterChunks: number | undefined
}

function contentType(format: 'pcm' | 'wav'): string {
  return format === 'wav' ? 'audio/wav' : 'audio/pcm'
}

export function handleSpeech(
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
  requireKind(engine, 'speech', 'Speech')
  const audio = engine.model.audio
  const request = readSpeechRequest(json, engine.model)
  const rtfHeader = Number(req.headers['x-sim-realtime-factor'])
  const timing: SpeechTiming = {
    firstAudioMs: (headerMs(req.headers['x-sim-first-audio-ms']) ?? audio.first_audio_ms) + failure.stallMs,
    realtimeFactor:
      req.headers['x-sim-realtime-factor'] !== undefined && Number.isFinite(rtfHeader) && rtfHeader >= 0
        ? rtfHeader
        : audio.realtime_factor,
    cutAfterChunks: failure.cutAfterChunks,
  }
  const admission = engine.scheduler.admit()
  if (audio.engine === 'espeak-ng') return runEspeak(sim, engine, request, res, admission, arrival)
  // The speed a whole-file model honours stretches or squeezes the speech.
  const speech = new SyntheticSpeech(request.input, request.voice, audio.ms_per_char / request.speed, sim.config.seed)
  const instant = timing.firstAudioMs === 0 && timing.realtimeFactor === 0 && timing.cutAfterChunks === undefined
  if (admission.kind === 'running' && instant) return sendWhole(engine, request, speech, res, arrival, 0)
  return runTimed(sim, engine, request, speech, timing, res, admission, arrival)
}

function startRun(engine: ModelEngine, request: SpeechRequest, samples: number, arrival: number) {
  return engine.startRun([textPromptTokens(request.input)], audioTokens(samples), (performance.now() - arrival) / 1000)
}

function sendWhole(
  engine: ModelEngine,
  request: SpeechRequest,
  speech: SyntheticSpeech,
  res: ServerResponse,
  arrival: number,
  queueSeconds: number,
): void {
  const ticket = engine.startRun([textPromptTokens(request.input)], audioTokens(speech.totalSamples), queueSeconds)
  const pcm = speech.next(speech.totalSamples)
  const body = request.format === 'wav' ? Buffer.concat([wavHeader(pcm.length, speechSampleRate), pcm]) : pcm
  res.writeHead(200, { 'content-type': contentType(request.format), 'content-length': body.length })
  res.end(body)
  const e2e = (performance.now() - arrival) / 1000
  engine.endRun(ticket, {
    finishedReason: 'stop',
    completionTokens: audioTokens(speech.totalSamples),
    ttftSeconds: e2e,
    e2eSeconds: e2e,
  })
}

async function runTimed(
  sim: SimContext,
  engine: ModelEngine,
  request: SpeechRequest,
  speech: SyntheticSpeech,
  timing: SpeechTiming,
  res: ServerResponse,
  admission: Admission,
  arrival: number,
): Promise<void> {
  const life = sim.active.open(res)
  const streaming = engine.model.audio.streaming
  try {
    if (streaming) {
      // Headers as soon as the request is accepted, before it runs (as vLLM does for streams).
      res.writeHead(200, { 'content-type': contentType(request.format) })
      res.flushHeaders()
    }
    if (!(await waitForSlot(admission, life))) return
    const ticket = startRun(engine, request, speech.totalSamples, arrival)
    const outcome: RunOutcome = { finishedReason: 'abort', completionTokens: 0, ttftSeconds: undefined, e2eSeconds: 0 }
    try {
      const started = performance.now()
      const secondsOf = (samples: number) => samples / speechSampleRate
      const due = (samples: number) =>
        started +
        timing.firstAudioMs +
        (timing.realtimeFactor > 0 ? (secondsOf(samples) * 1000) / timing.realtimeFactor : 0)
      if (!streaming) {
        // A whole-file server answers once everything is made.
        if (!(await sleep(due(speech.totalSamples) - performance.now(), life.signal))) return
        if (timing.cutAfterChunks !== undefined) return void res.destroy()
        outcome.ttftSeconds = (performance.now() - arrival) / 1000
        const pcm = speech.next(speech.totalSamples)
        const body = request.format === 'wav' ? Buffer.concat([wavHeader(pcm.length, speechSampleRate), pcm]) : pcm
        res.writeHead(200, { 'content-type': contentType(request.format), 'content-length': body.length })
        res.end(body)
        outcome.finishedReason = 'stop'
        outcome.completionTokens = audioTokens(speech.totalSamples)
        return
      }
      let sent = 0
      let chunks = 0
      if (request.format === 'wav' && !(await writeOrWait(res, wavHeader(undefined, speechSampleRate), life))) return
      const chunkSamples = engine.model.audio.chunk_samples
      while (speech.remaining > 0) {
        // Chunk k leaves when the audio before it has been "made": no drift over a long text.
        if (!(await sleep(due(sent) - performance.now(), life.signal))) return
        const pcm = speech.next(chunkSamples)
        if (timing.cutAfterChunks !== undefined && chunks === timing.cutAfterChunks) return void res.destroy()
        if (!(await writeOrWait(res, pcm, life))) return
        outcome.ttftSeconds ??= (performance.now() - arrival) / 1000
        sent += pcm.length / 2
        chunks++
      }
      res.end()
      outcome.finishedReason = 'stop'
      outcome.completionTokens = audioTokens(sent)
    } finally {
      outcome.e2eSeconds = (performance.now() - arrival) / 1000
      engine.endRun(ticket, outcome)
    }
  } finally {
    life.close()
  }
}

/** A real voice: espeak-ng's audio streamed as it speaks (a streaming model) or whole. */
async function runEspeak(
  sim: SimContext,
  engine: ModelEngine,
  request: SpeechRequest,
  res: ServerResponse,
  admission: Admission,
  arrival: number,
): Promise<void> {
  const life = sim.active.open(res)
  try {
    if (!(await waitForSlot(admission, life))) return
    const ticket = startRun(engine, request, 0, arrival)
    const outcome: RunOutcome = { finishedReason: 'abort', completionTokens: 0, ttftSeconds: undefined, e2eSeconds: 0 }
    const streaming = engine.model.audio.streaming
    let samples = 0
    try {
      const parts: Buffer[] = []
      for await (const pcm of espeakPcm(request.input, request.voice, request.speed, life.signal)) {
        if (streaming) {
          if (!res.headersSent) {
            res.writeHead(200, { 'content-type': contentType(request.format) })
            if (request.format === 'wav') res.write(wavHeader(undefined, speechSampleRate))
          }
          if (!(await writeOrWait(res, pcm, life))) return
          outcome.ttftSeconds ??= (performance.now() - arrival) / 1000
        } else parts.push(pcm)
        samples += pcm.length / 2
      }
      if (streaming) {
        if (!res.headersSent) res.writeHead(200, { 'content-type': contentType(request.format) })
        res.end()
      } else {
        const pcm = Buffer.concat(parts)
        const body = request.format === 'wav' ? Buffer.concat([wavHeader(pcm.length, speechSampleRate), pcm]) : pcm
        res.writeHead(200, { 'content-type': contentType(request.format), 'content-length': body.length })
        res.end(body)
      }
      outcome.finishedReason = 'stop'
      outcome.completionTokens = audioTokens(samples)
    } catch (err) {
      // Before any audio the error is an HTTP answer; after, a cut stream is all a client can see.
      if (!res.headersSent) throw err
      res.destroy()
    } finally {
      outcome.e2eSeconds = (performance.now() - arrival) / 1000
      engine.endRun(ticket, outcome)
    }
  } finally {
    life.close()
  }
}
