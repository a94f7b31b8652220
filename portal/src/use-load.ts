/** Loads data for a tab, with its error, and a way to load it again after a change. */
import { useCallback, useEffect, useState } from 'preact/hooks'

export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[] = [],
): { data: T | undefined; error: string; reload: () => Promise<void> } {
  const [data, setData] = useState<T>()
  const [error, setError] = useState('')
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const reload = useCallback(async () => {
    try {
      setData(await load())
      setError('')
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }, deps)
  useEffect(() => {
    void reload()
  }, [reload])
  return { data, error, reload }
}
