/**
 * Keys: each key with its group, state, expiry, own models, requests per minute and last use; an
 * on/off switch (applies to the key's next request); create (the secret shown once, with a copy
 * button), the limits edited (expiry, models, requests per minute; empty clears), rotate and
 * delete, each destructive step confirmed first.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type Group, type Key, type List, type UsageRow } from '../api.js'
import { count, when } from '../format.js'
import { useLoad } from '../use-load.js'
import { DataTable } from '../data-table.js'

interface Made {
  key: Key
  secret: string
}

async function loadKeys(): Promise<{ keys: Key[]; groups: Group[]; lastUse: Map<string, string> }> {
  // Last use: the newest record of each key, over all the records kept.
  const [keys, groups, usage] = await Promise.all([
    api.get<List<Key>>('/keys'),
    api.get<List<Group>>('/groups'),
    api.get<List<UsageRow>>(`/usage?by=key&from=0&to=${Date.now() + 60_000}`),
  ])
  return { keys: keys.data, groups: groups.data, lastUse: new Map(usage.data.map((r) => [r.key ?? '', r.last_at])) }
}

function Secret({ made, onDismiss }: { made: Made; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false)
  const [note, setNote] = useState('')
  // Focus moves to the new secret, so that keyboard and screen-reader users land on it.
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [made.secret])
  // The clipboard API exists only in a secure context (https, or localhost): elsewhere the
  // secret is selected for Ctrl+C instead.
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.secret)
      setCopied(true)
    } catch {
      const range = document.createRange()
      range.selectNodeContents(document.querySelector('[data-testid=secret]')!)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      setNote('Selected: press Ctrl+C (⌘C) to copy')
    }
  }
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h3 id="secret-title" tabIndex={-1} ref={heading}>
        Secret of key {made.key.id}
      </h3>
      <p>Copy it now: it is shown this once and cannot be read again (rotate the key to get a new one).</p>
      <p>
        <code data-testid="secret">{made.secret}</code>{' '}
        <button type="button" onClick={copy}>
          Copy
        </button>{' '}
        <span role="status">{copied ? 'Copied' : note}</span>
      </p>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have copied it
      </button>
    </section>
  )
}

/** An ISO time as a datetime-local input holds it: the operator's local time, to the minute. */
function localInput(iso: string | null): string {
  if (!iso) return ''
  const d = new Date(iso)
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

/** The three limits as the admin API takes them; an empty field is null (no expiry, the group's models, no limit). */
function limitsOf(field: (name: string) => string): Record<string, unknown> {
  const expires = field('expires')
  const models = field('models')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
  const rpm = field('rpm')
  return {
    // datetime-local is local time without a zone: Date reads it so, and ISO gives it its zone.
    expires_at: expires ? new Date(expires).toISOString() : null,
    models: models.length > 0 ? models : null,
    requests_per_minute: rpm ? Number(rpm) : null,
  }
}

/** The limits' inputs, named `<prefix>-expires`, `<prefix>-models`, `<prefix>-rpm`. */
function LimitFields({ prefix, k }: { prefix: string; k?: Key }) {
  return (
    <>
      <label for={`${prefix}-expires`}>Expires (empty: never)</label>
      <input
        id={`${prefix}-expires`}
        name={`${prefix}-expires`}
        type="datetime-local"
        value={localInput(k?.expires_at ?? null)}
      />
      <label for={`${prefix}-models`}>Own models (comma-separated; empty: none of its own)</label>
      <input id={`${prefix}-models`} name={`${prefix}-models`} value={k?.models?.join(', ') ?? ''} />
      <label for={`${prefix}-rpm`}>Requests per minute (empty: no limit)</label>
      <input
        id={`${prefix}-rpm`}
        name={`${prefix}-rpm`}
        type="number"
        min="1"
        step="1"
        value={k?.requests_per_minute ?? ''}
      />
    </>
  )
}

function LimitsForm({ k, onSaved, onCancel }: { k: Key; onSaved: () => void; onCancel: () => void }) {
  const [error, setError] = useState('')
  const prefix = `limits-${k.id}`
  const submit = async (e: Event) => {
    e.preventDefault()
    const f = (e.currentTarget as HTMLFormElement).elements
    const field = (name: string) => (f.namedItem(`${prefix}-${name}`) as HTMLInputElement).value.trim()
    try {
      await api.patch(`/keys/${encodeURIComponent(k.id)}`, limitsOf(field))
      onSaved()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <form class="group-form" onSubmit={submit} aria-label={`Limits of key ${k.id}`}>
      <LimitFields prefix={prefix} k={k} />
      <div class="actions">
        <button type="submit">Save limits</button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}

export function KeysTab() {
  const { data, error, reload } = useLoad(loadKeys)
  const [made, setMade] = useState<Made>()
  const [problem, setProblem] = useState('')
  const [editing, setEditing] = useState<string>()
  const act = async (work: () => Promise<unknown>) => {
    setProblem('')
    try {
      await work()
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err))
    }
    await reload()
  }
  const create = (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const id = (form.elements.namedItem('key-id') as HTMLInputElement).value.trim()
    const group = (form.elements.namedItem('key-group') as HTMLSelectElement).value
    const field = (name: string) => (form.elements.namedItem(`new-key-${name}`) as HTMLInputElement).value.trim()
    // Only the limits given: a new key has none to clear.
    const limits = Object.fromEntries(Object.entries(limitsOf(field)).filter(([, v]) => v !== null))
    void act(async () => {
      setMade(await api.post<Made>('/keys', { ...(id ? { id } : {}), group, ...limits }))
      form.reset()
    })
  }
  const toggle = (k: Key) => act(() => api.patch(`/keys/${encodeURIComponent(k.id)}`, { enabled: !k.enabled }))
  const rotate = (k: Key) => {
    if (!confirm(`Rotate the secret of key ${k.id}? The current secret stops working at once.`)) return
    void act(async () => setMade(await api.post<Made>(`/keys/${encodeURIComponent(k.id)}/rotate`)))
  }
  const remove = (k: Key) => {
    if (!confirm(`Delete key ${k.id}? Requests with it are refused from now on.`)) return
    void act(() => api.delete(`/keys/${encodeURIComponent(k.id)}`))
  }
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      {(error || problem) && (
        <p role="alert" class="error">
          {error || problem}
        </p>
      )}
      {made && <Secret made={made} onDismiss={() => setMade(undefined)} />}
      <form class="inline" onSubmit={create} aria-labelledby="create-key-title">
        <h3 id="create-key-title">Create a key</h3>
        <label for="key-id">Id (optional)</label>
        <input id="key-id" name="key-id" pattern="[A-Za-z0-9._\-]+" placeholder="generated" />
        <label for="key-group">Group</label>
        <select id="key-group" name="key-group" required>
          {data?.groups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.id}
            </option>
          ))}
        </select>
        <LimitFields prefix="new-key" />
        <button type="submit">Create key</button>
      </form>
      <DataTable
        caption="API keys"
        columns={['Key', 'Group', 'State', 'Expires', 'Models', 'Requests per minute', 'Last use', 'Actions']}
        rows={data?.keys ?? []}
        text={(k) => `${k.id} ${k.group} ${k.models?.join(' ') ?? ''}`}
        filters={[{ label: 'State', of: (k) => (k.expired ? 'expired' : k.enabled ? 'on' : 'off') }]}
        empty="No keys yet."
        row={(k) => (
          <tr key={k.id} data-key={k.id}>
            <th scope="row">{k.id}</th>
            <td>{k.group}</td>
            <td>
              <button
                type="button"
                role="switch"
                class="switch"
                aria-checked={k.enabled}
                aria-label={`Key ${k.id} enabled`}
                onClick={() => void toggle(k)}
              >
                <span aria-hidden="true">{k.enabled ? 'On' : 'Off'}</span>
              </button>
            </td>
            <td data-field="expires">
              {k.expires_at ? `${when(k.expires_at)}${k.expired ? ' (expired)' : ''}` : 'never'}
            </td>
            <td data-field="models">{k.models ? k.models.join(', ') : "group's"}</td>
            <td data-field="rpm">{k.requests_per_minute === null ? 'no limit' : count(k.requests_per_minute)}</td>
            <td>{when(data?.lastUse.get(k.id))}</td>
            <td class="actions">
              <button
                type="button"
                class="secondary"
                aria-expanded={editing === k.id}
                onClick={() => setEditing(editing === k.id ? undefined : k.id)}
                aria-label={`Limits of key ${k.id}`}
              >
                Limits
              </button>
              <button type="button" class="secondary" onClick={() => rotate(k)} aria-label={`Rotate key ${k.id}`}>
                Rotate
              </button>
              <button type="button" class="danger" onClick={() => remove(k)} aria-label={`Delete key ${k.id}`}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      {editing && data?.keys.some((k) => k.id === editing) && (
        <LimitsForm
          key={editing}
          k={data.keys.find((k) => k.id === editing)!}
          onSaved={() => {
            setEditing(undefined)
            void reload()
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
    </section>
  )
}
