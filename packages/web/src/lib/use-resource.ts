import { useCallback, useEffect, useState } from 'react';

/** A value loaded from the server, with its error and a way to load it again. */
export interface Resource<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` when `key` changes (and on `reload`). An answer that arrives after a newer load
 * started is dropped, so a slow request never overwrites a fresher one.
 */
export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);

  // `load` changes on every render; `key` says when it means something new.
  const run = useCallback(load, [key, generation]);

  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    run().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) =>
        current &&
        setState((s) => ({
          ...s,
          error: error instanceof Error ? error.message : String(error),
          loading: false,
        })),
    );
    return () => {
      current = false;
    };
  }, [run]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  return { ...state, reload };
}
