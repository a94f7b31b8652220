/** The operator portal: sign-in, then its tabs (keys, groups, usage, requests, errors, spend, models, knowledge base). */
import { render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, resume, signIn, signOut, whenSignedOut } from './api.js'
import { KeysTab } from './tabs/keys.js'
import { GroupsTab } from './tabs/groups.js'
import { UsageTab } from './tabs/usage.js'
import { ErrorsTab, RequestsTab } from './tabs/requests.js'
import { SpendTab } from './tabs/spend.js'
import { ModelsTab } from './tabs/models.js'
import { KnowledgeTab } from './tabs/knowledge.js'

const TABS = [
  { id: 'keys', label: 'Keys', view: KeysTab },
  { id: 'groups', label: 'Groups', view: GroupsTab },
  { id: 'usage', label: 'Usage', view: UsageTab },
  { id: 'requests', label: 'Requests', view: RequestsTab },
  { id: 'errors', label: 'Errors', view: ErrorsTab },
  { id: 'spend', label: 'Spend', view: SpendTab },
  { id: 'models', label: 'Models', view: ModelsTab },
  { id: 'knowledge', label: 'Knowledge base', view: KnowledgeTab },
] as const

function SignIn({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem('admin-key') as HTMLInputElement
    setBusy(true)
    setError('')
    try {
      await signIn(input.value)
      input.value = ''
      onDone()
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <h1>Sluice portal</h1>
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <label for="admin-key">Admin key</label>
        <input id="admin-key" name="admin-key" type="password" autocomplete="current-password" required autofocus />
        <p id="sign-in-help" class="hint">
          The key of server.yaml <code>admin.key_hash</code> or <code>SLUICE_ADMIN_KEY</code>. It is sent once; the
          session is kept in a cookie.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  )
}

function Portal({ onSignOut }: { onSignOut: () => void }) {
  const [tab, setTab] = useState<(typeof TABS)[number]['id']>(
    () => TABS.find((t) => `#${t.id}` === location.hash)?.id ?? 'keys',
  )
  const buttons = useRef<(HTMLButtonElement | null)[]>([])
  const select = (i: number) => {
    const t = TABS[(i + TABS.length) % TABS.length]!
    setTab(t.id)
    history.replaceState(null, '', `#${t.id}`)
    buttons.current[(i + TABS.length) % TABS.length]?.focus()
  }
  // Arrow keys, Home and End move between tabs (the WAI-ARIA tabs pattern).
  const onKey = (e: KeyboardEvent, i: number) => {
    const moves: Record<string, number> = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }
    if (e.key in moves) {
      e.preventDefault()
      select(moves[e.key]!)
    }
  }
  const current = TABS.find((t) => t.id === tab)!
  const View = current.view
  return (
    <>
      <header>
        <h1>Sluice portal</h1>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await signOut().catch(() => {})
            onSignOut()
          }}
        >
          Sign out
        </button>
      </header>
      <div role="tablist" aria-label="Portal sections">
        {TABS.map((t, i) => (
          <button
            type="button"
            key={t.id}
            ref={(el) => {
              buttons.current[i] = el
            }}
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === tab}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === tab ? 0 : -1}
            onClick={() => select(i)}
            onKeyDown={(e) => onKey(e, i)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <main role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`}>
        <View />
      </main>
    </>
  )
}

function App() {
  const [state, setState] = useState<'loading' | 'signed-out' | 'signed-in'>('loading')
  useEffect(() => {
    whenSignedOut(() => setState('signed-out'))
    void resume().then((ok) => setState(ok ? 'signed-in' : 'signed-out'))
  }, [])
  if (state === 'loading') return <p aria-busy="true">Loading…</p>
  if (state === 'signed-out') return <SignIn onDone={() => setState('signed-in')} />
  return <Portal onSignOut={() => setState('signed-out')} />
}

render(<App />, document.getElementById('app')!)
