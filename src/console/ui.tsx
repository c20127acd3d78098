import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './errors.js';

/** An API error in plain words, with its code, announced to screen readers. */
export function ErrorNotice({ error, action }: { error: unknown; action?: string }) {
  if (!error) return null;
  const shown = describeError(error);
  return (
    <div class="notice error" role="alert">
      <strong>{action ? `Could not ${action}. ` : ''}{shown.summary}</strong>
      <span class="detail">
        {' '}
        {shown.detail} <code>{shown.code}</code>
        {shown.status ? ` (HTTP ${shown.status})` : ''}
      </span>
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice ok" role="status">
      {children}
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of `keys`; `reload` fetches again (after an action changed something). */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...keys, round]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setRound((n) => n + 1), []) };
}

/** Runs an action once at a time: `busy` disables its button, `error` is shown next to it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/** Server-side pages by cursor: a stack of `after` values, so "Previous" goes back exactly. */
export function useCursor() {
  const [stack, setStack] = useState<Array<string | undefined>>([undefined]);
  const after = stack.at(-1);
  return {
    after,
    pageNumber: stack.length,
    next: (lastId: string | null) => lastId && setStack([...stack, lastId]),
    previous: () => setStack(stack.length > 1 ? stack.slice(0, -1) : stack),
    reset: () => setStack([undefined]),
  };
}

export function Pager({ label, pageNumber, hasPrevious, hasNext, onPrevious, onNext }: { label: string; pageNumber: number; hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={onPrevious} disabled={!hasPrevious}>
        Previous page
      </button>
      <span>Page {pageNumber}</span>
      <button type="button" onClick={onNext} disabled={!hasNext}>
        Next page
      </button>
    </nav>
  );
}

export const PAGE_SIZE = 20;

/** Pages of a list the API answers whole (keys, teams, employees, spaces). */
export function usePages<T>(items: readonly T[] | undefined, size = PAGE_SIZE) {
  const [index, setIndex] = useState(0);
  const all = items ?? [];
  const last = Math.max(0, Math.ceil(all.length / size) - 1);
  const page = Math.min(index, last);
  return {
    items: all.slice(page * size, page * size + size),
    pager: { pageNumber: page + 1, hasPrevious: page > 0, hasNext: page < last, onPrevious: () => setIndex(page - 1), onNext: () => setIndex(page + 1) },
  };
}

/**
 * A button that asks first, in a modal dialog (keyboard: Tab between the two buttons, Escape cancels;
 * focus returns to the button afterwards).
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled, danger }: { label: string; question: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean; danger?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class={danger ? 'danger' : ''} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-label={label}>
        <p>{question}</p>
        <div class="actions">
          <button type="button" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class={danger ? 'danger' : 'primary'}
            onClick={() => {
              dialog.current?.close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function Loading({ loaded }: { loaded: { loading: boolean; data: unknown } }) {
  return loaded.loading && loaded.data === undefined ? <p aria-live="polite">Loading…</p> : null;
}

export const today = () => new Date().toISOString().slice(0, 10);
export const monthStart = () => `${today().slice(0, 7)}-01`;
