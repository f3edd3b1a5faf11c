import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon';

/** What a list shows while it has nothing: an icon, a title, a sentence on how to fill it, and any actions. */
export function EmptyState({
  icon,
  iconSize = 22,
  title,
  body,
  compact = false,
  children,
}: {
  icon: IconName;
  iconSize?: number;
  title: string;
  body: ReactNode;
  /** Less padding, inside a dialog. */
  compact?: boolean;
  /** Under the sentence: a path, buttons. */
  children?: ReactNode;
}) {
  return (
    <div className={compact ? 'empty-state empty-state-compact' : 'empty-state'}>
      <span className="empty-icon">
        <Icon name={icon} size={iconSize} />
      </span>
      <p className="empty-title">{title}</p>
      <p className="muted">{body}</p>
      {children}
    </div>
  );
}
