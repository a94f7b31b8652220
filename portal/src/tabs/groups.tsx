/**
 * Groups: the models each may use, its spending budget per term, its per-minute tokens and its
 * weight in the fair queue; viewed and edited here (PUT: the whole group, as keys.yaml writes it).
 */
import { useState } from 'preact/hooks'
import { api, type Group, type List } from '../api.js'
import { count, value } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

function GroupForm({ group, onSaved, onCancel }: { group?: Group; onSaved: () => void; onCancel?: () => void }) {
  const [error, setError] = useState('')
  const prefix = `group-${group?.id ?? 'new'}`
  const submit = async (e: Event) => {
    e.preventDefault()
    const f = (e.currentTarget as HTMLFormElement).elements
    const field = (name: string) => (f.namedItem(`${prefix}-${name}`) as HTMLInputElement).value.trim()
    const id = group?.id ?? field('id')
    const amount = field('budget')
    const tpm = field('tpm')
    const body = {
      models: field('models')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean),
      weight: Number(field('weight') || '1'),
      ...(amount ? { budget: { amount: Number(amount), term: field('term') } } : {}),
      ...(tpm ? { tokens_per_minute: Number(tpm) } : {}),
    }
    try {
      await api.put(`/groups/${encodeURIComponent(id)}`, body)
      onSaved()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <form class="group-form" onSubmit={submit} aria-label={group ? `Edit group ${group.id}` : 'New group'}>
      {!group && (
        <>
          <label for={`${prefix}-id`}>Id</label>
          <input id={`${prefix}-id`} required pattern="[A-Za-z0-9._\-]+" />
        </>
      )}
      <label for={`${prefix}-models`}>Permitted models (comma-separated, * for all)</label>
      <input id={`${prefix}-models`} required value={(group?.models ?? ['*']).join(', ')} />
      <label for={`${prefix}-budget`}>Budget (indicative value; empty for none)</label>
      <input id={`${prefix}-budget`} type="number" min="0" step="any" value={group?.budget?.amount ?? ''} />
      <label for={`${prefix}-term`}>Budget term</label>
      <select id={`${prefix}-term`} value={group?.budget?.term ?? 'month'}>
        <option value="day">day</option>
        <option value="week">week</option>
        <option value="month">month</option>
      </select>
      <label for={`${prefix}-tpm`}>Tokens per minute (empty for no limit)</label>
      <input id={`${prefix}-tpm`} type="number" min="1" step="1" value={group?.tokens_per_minute ?? ''} />
      <label for={`${prefix}-weight`}>Fairness weight</label>
      <input id={`${prefix}-weight`} type="number" min="0.01" step="any" value={group?.weight ?? 1} />
      <div class="actions">
        <button type="submit">Save group</button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}

export function GroupsTab() {
  const { data, error, reload } = useLoad(() => api.get<List<Group>>('/groups'))
  const [editing, setEditing] = useState<string>()
  const saved = () => {
    setEditing(undefined)
    void reload()
  }
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <DataTable
        caption="Groups"
        columns={['Group', 'Permitted models', 'Budget', 'Tokens per minute', 'Fairness weight', 'Source', 'Edit']}
        rows={data?.data ?? []}
        text={(g) => `${g.id} ${g.models.join(' ')}`}
        filters={[{ label: 'Source', of: (g) => g.source }]}
        row={(g) => (
          <tr key={g.id} data-group={g.id}>
            <th scope="row">{g.id}</th>
            <td>{g.models.join(', ')}</td>
            <td>{g.budget ? `${value(g.budget.amount)} per ${g.budget.term}` : 'none'}</td>
            <td>{g.tokens_per_minute === null ? 'no limit' : count(g.tokens_per_minute)}</td>
            <td>{g.weight}</td>
            <td>{g.source}</td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-expanded={editing === g.id}
                onClick={() => setEditing(editing === g.id ? undefined : g.id)}
                aria-label={`Edit group ${g.id}`}
              >
                Edit
              </button>
            </td>
          </tr>
        )}
      />
      {editing && data && (
        <GroupForm
          key={editing}
          group={data.data.find((g) => g.id === editing)}
          onSaved={saved}
          onCancel={() => setEditing(undefined)}
        />
      )}
      <details>
        <summary>New group</summary>
        <GroupForm onSaved={saved} />
      </details>
    </section>
  )
}
