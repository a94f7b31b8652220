/**
 * The built-in plugins, as the kernel's registry receives them (kernel/gateway.ts). This file
 * only lists the plugin folders: plugins import nothing from each other.
 */
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
import rerank from './rerank/index.js'
import speech from './speech/index.js'
import speechVoices from './speech-voices/index.js'
import multipartUpload from './multipart-upload/index.js'
import transcription from './transcription/index.js'
import verdicts from './verdicts/index.js'
import budget from './budget/index.js'
import fairQueue from './fair-queue/index.js'
import usageRecords from './usage-records/index.js'
import adminAuth from './admin-auth/index.js'
import adminKeys from './admin-keys/index.js'
import adminGroups from './admin-groups/index.js'
import adminUsage from './admin-usage/index.js'
import metrics from './metrics/index.js'
import probe from './probe/index.js'
import openapi from './openapi/index.js'
import anthropicMessages from './anthropic-messages/index.js'
import tokenCount from './token-count/index.js'
import openaiResponses from './openai-responses/index.js'
import knowledgeCollections from './knowledge-collections/index.js'
import knowledgeDocuments from './knowledge-documents/index.js'
import knowledgeSearch from './knowledge-search/index.js'
import queryAuth from './query-auth/index.js'
import query from './query/index.js'
import queryCompare from './query-compare/index.js'
import queryRealtime from './query-realtime/index.js'
import adminProjects from './admin-projects/index.js'
import querySearch from './query-search/index.js'
import queryVision from './query-vision/index.js'
import queryRerank from './query-rerank/index.js'
import jsonUpload from './json-upload/index.js'
import queryUpload from './query-upload/index.js'
import imageGeneration from './image-generation/index.js'
import queryImage from './query-image/index.js'
import queryAudio from './query-audio/index.js'
import querySpeech from './query-speech/index.js'
import adminModels from './admin-models/index.js'
import portalAuth from './portal-auth/index.js'
import portalAssets from './portal-assets/index.js'
import webSearch from './web-search/index.js'
import responseCache from './response-cache/index.js'

export const builtinPlugins = [
  auth,
  model,
  modelCatalog,
  reasoning,
  capabilities,
  boons,
  backend,
  maxTokens,
  soapCodec,
  serviceCatalog,
  rerank,
  speech,
  speechVoices,
  multipartUpload,
  transcription,
  verdicts,
  budget,
  fairQueue,
  usageRecords,
  adminAuth,
  adminKeys,
  adminGroups,
  adminUsage,
  metrics,
  probe,
  openapi,
  anthropicMessages,
  tokenCount,
  openaiResponses,
  knowledgeCollections,
  knowledgeDocuments,
  knowledgeSearch,
  queryAuth,
  query,
  adminProjects,
  querySearch,
  queryVision,
  queryRerank,
  jsonUpload,
  queryUpload,
  imageGeneration,
  queryImage,
  queryAudio,
  querySpeech,
  queryCompare,
  queryRealtime,
  adminModels,
  portalAuth,
  portalAssets,
  webSearch,
  responseCache,
]
