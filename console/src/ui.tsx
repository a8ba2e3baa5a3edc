import { Alert } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './api';

/** What the API said, shown where the action was (role=alert: screen readers announce it). */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof ApiError ? error.message : String((error as Error)?.message ?? error);
  const code = error instanceof ApiError && error.code ? ` (${error.code}, ${error.status})` : error instanceof ApiError && error.status ? ` (${error.status})` : '';
  return (
    <Alert color="red" title="The server refused" role="alert" data-testid="error">
      {message}
      {code}
    </Alert>
  );
}

/** Loads once (and again on `reload()`), keeping the error to show. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const reload = useCallback(() => {
    setLoading(true);
    load()
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch(setError)
      .finally(() => setLoading(false));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, loading, reload };
}

export const usd = (value: number | null | undefined) => (value === null || value === undefined ? 'unlimited' : `$${value.toFixed(2)}`);
export const when = (iso: string | null) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—');
