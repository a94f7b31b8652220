/**
 * Models: the catalog (type, capabilities, boons, retirement status and dates) and, per
 * backend, its capacity and the requests waiting and running now, refreshed every 5 seconds.
 */
import { useEffect } from 'preact/hooks'
import { api } from '../api.js'
import { when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

interface ModelsView {
  at: string
  models: {
    id: string
    model_type: string
    backend: string
    capabilities: string[]
    reasoning: string
    boons: string[]
    status: string
    replacement: string | null
    deprecated_at: string | null
    retire_at: string | null
    retired: boolean
  }[]
  backends: { name: string; capacity: number; waiting: number; running: number }[]
}

export function ModelsTab() {
  const { data, error, reload } = useLoad(() => api.get<ModelsView>('/models'))
  useEffect(() => {
    const timer = setInterval(() => void reload(), 5000)
    return () => clearInterval(timer)
  }, [reload])
  return (
    <section aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <h3>Backends now</h3>
      <p class="hint">
        As of {when(data?.at)}; refreshed every 5 seconds.{' '}
        <button type="button" class="secondary" onClick={() => void reload()}>
          Refresh now
        </button>
      </p>
      <DataTable
        caption="Backends: capacity, waiting and running requests"
        columns={['Backend', 'Capacity', 'Running', 'Queue depth']}
        rows={data?.backends ?? []}
        text={(b) => b.name}
        row={(b) => (
          <tr key={b.name} data-backend={b.name}>
            <th scope="row">{b.name}</th>
            <td>{b.capacity}</td>
            <td>{b.running}</td>
            <td>{b.waiting}</td>
          </tr>
        )}
      />
      <h3>Catalog</h3>
      <DataTable
        caption="Models of the catalog"
        columns={['Model', 'Type', 'Backend', 'Capabilities', 'Boons', 'Status', 'Retirement']}
        rows={data?.models ?? []}
        text={(m) =>
          `${m.id} ${m.model_type} ${m.backend} ${m.capabilities.join(' ')} ${m.boons.join(' ')} ${m.status}`
        }
        filters={[
          { label: 'Type', of: (m) => m.model_type },
          { label: 'Status', of: (m) => (m.retired ? 'retired' : m.status) },
        ]}
        row={(m) => (
          <tr key={m.id}>
            <th scope="row">{m.id}</th>
            <td>{m.model_type}</td>
            <td>{m.backend}</td>
            <td>{[...m.capabilities, ...(m.reasoning === 'mapped' ? ['reasoning'] : [])].join(', ') || '—'}</td>
            <td>{m.boons.join(', ') || '—'}</td>
            <td>{m.retired ? 'retired' : m.status}</td>
            <td>
              {m.retire_at
                ? `announced ${when(m.deprecated_at)}, retires ${when(m.retire_at)}${m.replacement ? `; use ${m.replacement}` : ''}`
                : '—'}
            </td>
          </tr>
        )}
      />
    </section>
  )
}
