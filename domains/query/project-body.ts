/**
 * The body of PUT /admin/projects/:id: a project as config/projects.yaml writes it, without
 * `tokens` (tokens are made one by one, so that each secret is shown once).
 */
import type { FromSchema } from 'json-schema-to-ts'
import { projectSchema } from '../../schemas/projects.schema.js'

const { tokens: _tokens, ...fields } = projectSchema.properties

export const projectBodySchema = { ...projectSchema, properties: fields } as const

export type ProjectBody = FromSchema<typeof projectBodySchema>
