/**
 * The knowledge API end-to-end scenarios (knowledge-scenarios.ts) with the gateway on the real
 * PostgreSQL (records and knowledge base, a fresh schema, dropped after): the exact-array
 * vector path, since the server has no pgvector.
 */
import { knowledgeScenarios } from './knowledge-scenarios.js'

knowledgeScenarios('postgres')
