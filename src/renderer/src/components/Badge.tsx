import type { ReactNode } from 'react';

/** `attention`: the user must act (decide on a key, answer a question). */
export type BadgeTone = 'neutral' | 'info' | 'success' | 'danger' | 'warning' | 'attention' | 'accent';

export function Badge({ tone = 'neutral', dot = false, title, children }: { tone?: BadgeTone; dot?: boolean; title?: string; children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {dot && <span className="badge-dot" aria-hidden="true" />}
      {children}
    </span>
  );
}
