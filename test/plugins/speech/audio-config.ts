/**
 * A copy of the embedded default config with extra speech models that the demo catalog does not
 * have: a server that only speaks WAV (Orpheus-FastAPI), and one that encodes mp3 itself.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { defaultConfigDir } from '../../../kernel/contract/paths.js'

export function speechTestConfigDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-speech-config-'))
  for (const f of fs.readdirSync(defaultConfigDir)) {
    const src = path.join(defaultConfigDir, f)
    if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(dir, f))
  }
  fs.appendFileSync(
    path.join(dir, 'models.yaml'),
    `
  - id: wav-only-tts              # Orpheus-FastAPI: WAV only, whole file
    model_type: audio_speech
    backend: sim-speech
    served_name: orpheus
    audio: { voices: [tara, leo], pcm_from: wav, native_formats: [wav] }

  - id: mp3-tts                   # a server that encodes mp3 itself
    model_type: audio_speech
    backend: sim-speech
    audio: { voices: [vivian], native_formats: [pcm, mp3] }
`,
  )
  return dir
}
