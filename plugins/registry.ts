/** The built-in plugins, as the kernel's registry receives them. */
import type { AnyPlugin } from '../kernel/plugin.js'
import auth from './auth/index.js'
import model from './model/index.js'
import modelCatalog from './model-catalog/index.js'
import backend from './backend/index.js'
import maxTokens from './max-tokens/index.js'
import reasoning from './reasoning/index.js'
import capabilities from './capabilities/index.js'
import boons from './boons/index.js'
import soapCodec from './soap-codec/index.js'
import serviceCatalog from './service-catalog/index.js'
import speech from './speech/index.js'
import speechVoices from './speech-voices/index.js'
import multipartUpload from './multipart-upload/index.js'
import transcription from './transcription/index.js'
import verdicts from './verdicts/index.js'

export const builtinPlugins: AnyPlugin[] = [auth, model, modelCatalog, reasoning, capabilities, boons, backend, maxTokens, soapCodec, serviceCatalog, speech, speechVoices, multipartUpload, transcription, verdicts] as AnyPlugin[]
