/**
 * The gateway for the audio suites: the e2e test gateway with the simulator's speech and
 * transcription timings at zero (the default config has real ones: first audio 0.3 s, 1.8 times
 * real time), so the suites stay fast. A test that needs timing asks per request with the
 * simulator's headers (x-sim-first-audio-ms, x-sim-realtime-factor), which the gateway passes on.
 */
import fs from 'node:fs'
import path from 'node:path'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { loadSimConfig } from '../../sim/index.js'
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/gateway.js'

export function zeroAudioTimings(simulatorYaml: string): string {
  return simulatorYaml
    .replace(/ttft_ms:\s*[\d.]+/, 'ttft_ms: 0')
    .replace(/itl_ms:\s*[\d.]+/, 'itl_ms: 0')
    .replace(/first_audio_ms:\s*[\d.]+/g, 'first_audio_ms: 0')
    .replace(/realtime_factor:\s*[\d.]+/g, 'realtime_factor: 0')
}

export function startAudioGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const sim = zeroAudioTimings(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8'))
  return startTestGateway({ ...options, files: { 'config/simulator.yaml': sim, ...options.files } })
}

/** The synthetic voice's pace (ms per character) of a simulated speech model, from config/simulator.yaml. */
export function msPerChar(model: string): number {
  const m = loadSimConfig(path.join(defaultConfigDir, 'simulator.yaml')).models.find((x) => x.name === model)
  if (!m) throw new Error(`no simulated model ${model}`)
  return m.audio.ms_per_char
}
