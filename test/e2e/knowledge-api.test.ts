/** The knowledge API end-to-end scenarios (knowledge-scenarios.ts) on the embedded SQLite store. */
import { knowledgeScenarios } from './knowledge-scenarios.js'

knowledgeScenarios('sqlite')
