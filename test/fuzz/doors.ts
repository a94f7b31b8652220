/**
 * The doors of the fuzz run, one table entry each: what the door sends, where its format
 * belongs, and how input `n` is made. The WebSocket door, whose inputs are messages on open
 * sockets rather than requests, is socket-fuzz.ts.
 */
import type { Door, Target } from './door.js'
import { jsonMutation } from './json-mutations.js'
import { formBody, validForm, multipartMutation } from './multipart-mutations.js'
import { xmlMutation } from './xml-mutations.js'
import { audioMutation } from './audio-header-mutations.js'
import { pathMutation } from './path-mutations.js'
import { plausibleParam, validBody } from './valid-bodies.js'
import { bodySchemas } from '../../schemas/bodies.js'

export interface DoorLimits {
  /** The largest string or body a mutation makes (enormous strings, oversize XML). */
  maxBytes: number
}

const isUpload = (t: Target) =>
  t.routeId === 'audio-transcriptions' ||
  t.routeId === 'audio-translations' ||
  (t.body.kind === 'raw' && t.errors === 'openai')

export function doors(limits: DoorLimits): Door[] {
  return [
    {
      name: 'json',
      home: (t) => t.body.kind === 'json',
      make(rng, target, index) {
        const schema = target.body.kind === 'json' ? target.body.schema : undefined
        const { mutation, body } = jsonMutation(
          rng,
          validBody(target, (items) => rng.pick(items)),
          schema === undefined ? undefined : bodySchemas[schema],
          index,
          limits.maxBytes,
        )
        const contentType = rng.chance(0.9)
          ? 'application/json'
          : rng.pick(['text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', ''])
        return { mutation, contentType, body }
      },
    },
    {
      name: 'multipart',
      home: isUpload,
      make(rng) {
        return multipartMutation(rng)
      },
    },
    {
      name: 'xml',
      home: (t) => t.errors === 'soap' && t.method === 'POST',
      make(rng) {
        return xmlMutation(rng, limits.maxBytes)
      },
    },
    {
      name: 'audio-header',
      home: isUpload,
      make(rng) {
        const { mutation, file, filename } = audioMutation(rng)
        return {
          mutation,
          contentType: 'multipart/form-data; boundary=fuzz',
          body: formBody('fuzz', validForm(rng, file, filename)),
        }
      },
    },
    {
      name: 'path',
      home: () => true,
      make(rng, target) {
        return pathMutation(rng, target, plausibleParam(target))
      },
    },
  ]
}
