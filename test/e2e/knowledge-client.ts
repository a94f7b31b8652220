/** The knowledge API over fetch, for the e2e scenarios: JSON calls, multipart uploads, search, admin reads. */
export type Body = Record<string, unknown> & { error?: { message: string; code?: string } }
export type Reply = { status: number; body: Body }

export interface KnowledgeClient {
  call(method: string, path: string, body?: unknown, key?: string): Promise<Reply>
  upload(path: string, file: Blob, fileName: string, fields: Record<string, string>): Promise<Reply>
  /** POST /projects/alpha/collections/{collection}/search */
  search(collection: string, body: object): Promise<Reply>
  /** GET an admin path; its `data`. */
  admin(path: string): Promise<unknown[]>
}

export function knowledgeClient(url: string, adminKey: string): KnowledgeClient {
  const base = `${url}/knowledge/v1`
  const auth = (key = adminKey) => ({ authorization: `Bearer ${key}` })
  const reply = async (res: Response): Promise<Reply> => ({ status: res.status, body: (await res.json()) as Body })
  const call: KnowledgeClient['call'] = async (method, path, body, key) =>
    reply(
      await fetch(`${base}${path}`, {
        method,
        headers: { ...auth(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
  return {
    call,
    async upload(path, file, fileName, fields) {
      const form = new FormData()
      for (const [k, v] of Object.entries(fields)) form.append(k, v)
      form.append('file', file, fileName)
      return reply(await fetch(`${base}${path}`, { method: 'POST', headers: auth(), body: form }))
    },
    search: (collection, body) => call('POST', `/projects/alpha/collections/${collection}/search`, body),
    async admin(path) {
      const res = await fetch(`${url}${path}`, { headers: auth() })
      return ((await res.json()) as { data: unknown[] }).data
    },
  }
}
