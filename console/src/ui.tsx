import { Alert, Card, CardProps, Table, Title } from '@mantine/core';
import { ReactNode, useCallback, useEffect, useRef, useState } from 'react';
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

/** A titled card: every screen's unit (a form, a table, a chart). */
export function Section({ title, children, ...card }: { title: ReactNode; children: ReactNode } & CardProps & { 'data-testid'?: string }) {
  return (
    <Card withBorder {...card}>
      <Title order={3} size="h4">
        {title}
      </Title>
      {children}
    </Card>
  );
}

/**
 * A table that scrolls sideways where the screen is narrower than `minWidth`. While it does, its
 * scrolling box is a named region in the keyboard's order, so arrow keys can scroll it (a table
 * of plain text has nothing else to focus); while the table fits, it is no stop of the keyboard.
 */
export function ScrollTable({ minWidth, label, children }: { minWidth: number; label: string; children: ReactNode }) {
  const viewport = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const box = viewport.current;
    if (!box) return;
    const measure = () => setScrolls(box.scrollWidth > box.clientWidth);
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    measure();
    return () => observer.disconnect();
  }, []);
  const focusable = scrolls ? { tabIndex: 0, role: 'region', 'aria-label': label } : {};
  return (
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportRef: viewport, viewportProps: focusable }}>
      {children}
    </Table.ScrollContainer>
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
    // The caller's deps, not `load`: a screen passes a new closure each render.
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, loading, reload };
}

/**
 * One user action against the API: `run` clears the last error, marks it busy (for a button's
 * progress), and keeps what the API said when it refuses; resolves true when it went through.
 */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await action();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}

export const usd = (value: number | null | undefined) => (value === null || value === undefined ? 'unlimited' : `$${value.toFixed(2)}`);
export const when = (iso: string | null) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—');
