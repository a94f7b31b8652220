/** The knowledge API of a project as its admin calls it: `kb('POST', '', {name})`, `kb('PUT', '/c/documents/x', {text})`. */
export const knowledgeAdmin =
  (url: string, adminKey: string, project = 'demo') =>
  (method: string, path: string, body: object): Promise<Response> =>
    fetch(`${url}/knowledge/v1/projects/${project}/collections${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

/** One call of it, answering only the status (the body read and dropped). */
export async function knowledgeStatus(url: string, adminKey: string, method: string, path: string, body: object) {
  const res = await knowledgeAdmin(url, adminKey)(method, path, body)
  await res.arrayBuffer()
  return res.status
}
