/**
 * Knowledge base: a project's collections (documents, chunks, embedding model), a collection's
 * documents, and uploading a file into a collection (embedded through the gateway's embeddings
 * route, so it is queued, budgeted and recorded like any request).
 */
import { useState } from 'preact/hooks'
import { api, type List } from '../api.js'
import { count, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

interface Collection {
  name: string
  embedding_model: string
  documents: number
  chunks: number
  created_at: string
}
interface Doc {
  source_name: string
  chunks: number
  tags: string[]
  updated_at: string
}

function Documents({ project, collection, onChange }: { project: string; collection: string; onChange: () => void }) {
  const base = `/projects/${encodeURIComponent(project)}/collections/${encodeURIComponent(collection)}/documents`
  const { data, error, reload } = useLoad(() => api.get<List<Doc>>(base), [base])
  const [status, setStatus] = useState('')
  const upload = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const input = form.elements.namedItem('kb-file') as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    const body = new FormData()
    body.append('file', file)
    setStatus(`Uploading ${file.name}…`)
    try {
      await api.post(base, body)
      setStatus(`${file.name} added.`)
      form.reset()
    } catch (err) {
      setStatus(`Upload failed: ${err instanceof Error ? err.message : String(err)}`)
    }
    await reload()
    onChange()
  }
  return (
    <section aria-labelledby="docs-title">
      <h3 id="docs-title">Documents of {collection}</h3>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form class="inline" onSubmit={upload}>
        <label for="kb-file">File (Markdown, text, HTML, PDF)</label>
        <input id="kb-file" name="kb-file" type="file" required />
        <button type="submit">Upload</button>
        <span role="status">{status}</span>
      </form>
      <DataTable
        caption="Documents"
        columns={['Document', 'Chunks', 'Tags', 'Updated']}
        rows={data?.data ?? []}
        text={(d) => `${d.source_name} ${d.tags.join(' ')}`}
        row={(d) => (
          <tr key={d.source_name}>
            <th scope="row">{d.source_name}</th>
            <td>{count(d.chunks)}</td>
            <td>{d.tags.join(', ')}</td>
            <td>{when(d.updated_at)}</td>
          </tr>
        )}
      />
    </section>
  )
}

export function KnowledgeTab() {
  const projects = useLoad(() => api.get<List<{ id: string }>>('/projects'))
  const [project, setProject] = useState<string>()
  const chosen = project ?? projects.data?.data[0]?.id
  const collections = useLoad(
    () =>
      chosen
        ? api.get<List<Collection>>(`/projects/${encodeURIComponent(chosen)}/collections`)
        : Promise.resolve({ data: [] }),
    [chosen],
  )
  const [open, setOpen] = useState<string>()
  const [problem, setProblem] = useState('')
  const create = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const name = (form.elements.namedItem('kb-collection') as HTMLInputElement).value.trim()
    if (!chosen) return
    setProblem('')
    try {
      await api.post(`/projects/${encodeURIComponent(chosen)}/collections`, { name })
      form.reset()
      setOpen(name)
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err))
    }
    await collections.reload()
  }
  return (
    <section aria-labelledby="kb-title">
      <h2 id="kb-title">Knowledge base</h2>
      {(projects.error || collections.error || problem) && (
        <p role="alert" class="error">
          {projects.error || collections.error || problem}
        </p>
      )}
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label for="kb-project">Project</label>
        <select
          id="kb-project"
          value={chosen}
          onChange={(e) => {
            setProject((e.currentTarget as HTMLSelectElement).value)
            setOpen(undefined)
          }}
        >
          {projects.data?.data.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </form>
      <form class="inline" onSubmit={create}>
        <label for="kb-collection">New collection</label>
        <input id="kb-collection" name="kb-collection" required pattern="[A-Za-z0-9._\-]+" />
        <button type="submit">Create collection</button>
      </form>
      <DataTable
        caption="Collections"
        columns={['Collection', 'Documents', 'Chunks', 'Embedding model', 'Created', 'Open']}
        rows={collections.data?.data ?? []}
        text={(c) => `${c.name} ${c.embedding_model}`}
        filters={[{ label: 'Embedding model', of: (c) => c.embedding_model }]}
        row={(c) => (
          <tr key={c.name}>
            <th scope="row">{c.name}</th>
            <td>{count(c.documents)}</td>
            <td>{count(c.chunks)}</td>
            <td>{c.embedding_model}</td>
            <td>{when(c.created_at)}</td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-expanded={open === c.name}
                onClick={() => setOpen(open === c.name ? undefined : c.name)}
                aria-label={`Documents of ${c.name}`}
              >
                Documents
              </button>
            </td>
          </tr>
        )}
      />
      {chosen && open && <Documents project={chosen} collection={open} onChange={() => void collections.reload()} />}
    </section>
  )
}
