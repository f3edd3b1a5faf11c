import { Component, type ReactNode } from 'react';
import { t } from '../i18n';
import { Icon } from './Icon';

interface Props {
  /** Called before rendering again, so a page whose chunk failed to load fetches it anew. */
  onRetry(): void;
  children: ReactNode;
}

/**
 * A page that fails to load or to render shows what went wrong and a way to try again, in place of the page; the
 * shell (navigation, status bar, dialogs) stays usable, and no state outside the page is lost.
 */
export class PageErrorBoundary extends Component<Props, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  private retry = () => {
    this.props.onRetry();
    this.setState({ error: null });
  };

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="banner banner-danger page-error" role="alert">
        <Icon name="alert" size={16} />
        <div className="banner-content">
          <p className="banner-title">{t('app.pageFailed')}</p>
          <p className="page-error-detail">{error.message}</p>
          <button type="button" className="btn" onClick={this.retry}>
            {t('app.pageRetry')}
          </button>
        </div>
      </div>
    );
  }
}
