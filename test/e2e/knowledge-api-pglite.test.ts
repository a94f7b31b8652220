/**
 * The knowledge API end-to-end scenarios (knowledge-scenarios.ts) with the gateway on PGlite
 * with pgvector, served over the wire protocol on a loopback port: the pgvector (HNSW) path.
 */
import { knowledgeScenarios } from './knowledge-scenarios.js'

knowledgeScenarios('pglite')
