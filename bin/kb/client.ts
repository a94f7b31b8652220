/**
 * The few routes of the knowledge API (docs/api-reference.md, "Knowledge base API") the bulk
 * loader needs, over the global fetch. A refusal becomes a KbApiError carrying the server's
 * own message, which is what the summary shows for a failed file.
 */
import path from 'node:path'

export class KbApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export interface DocumentInfo {
  source_name: string
  chunks: number
}

export class KbClient {
  private readonly base: string

  constructor(
    url: string,
    private readonly adminKey: string,
    project: string,
  ) {
    this.base = `${url}/knowledge/v1/projects/${encodeURIComponent(project)}/collections`
  }

  async collectionNames(): Promise<string[]> {
    const list = (await this.send('GET', '')) as { data: { name: string }[] }
    return list.data.map((c) => c.name)
  }

  async createCollection(name: string): Promise<void> {
    await this.send('POST', '', JSON.stringify({ name }), 'application/json')
  }

  async documents(collection: string): Promise<DocumentInfo[]> {
    return ((await this.send('GET', `/${encodeURIComponent(collection)}/documents`)) as { data: DocumentInfo[] }).data
  }

  /**
   * The multipart route, since it takes the file's bytes as they are (no base64 inflation).
   * The file part carries no content type, so the server tells the format from the extension.
   */
  async upload(collection: string, sourceName: string, bytes: Uint8Array, tags: string[]): Promise<DocumentInfo> {
    const form = new FormData()
    form.append('source_name', sourceName)
    if (tags.length > 0) form.append('tags', JSON.stringify(tags))
    form.append('file', new Blob([bytes]), path.posix.basename(sourceName))
    return (await this.send('POST', `/${encodeURIComponent(collection)}/documents`, form)) as DocumentInfo
  }

  private async send(method: string, suffix: string, body?: string | FormData, contentType?: string): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.adminKey}` }
    if (contentType) headers['content-type'] = contentType
    const res = await fetch(this.base + suffix, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (!res.ok) {
      const message =
        (parsed as { error?: { message?: string } } | undefined)?.error?.message ??
        (text.slice(0, 200) || res.statusText)
      throw new KbApiError(res.status, `${res.status} ${message}`)
    }
    return parsed
  }
}
